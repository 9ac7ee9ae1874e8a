"""How the wire API picks what to answer in (DRF's content negotiation, REST_FRAMEWORK's setting)."""

from rest_framework.negotiation import DefaultContentNegotiation


class JsonAnswers(DefaultContentNegotiation):
    """An endpoint with one renderer (the wire API's JSON) answers with it whatever the request's
    Accept says, without parsing Accept on every call; the OpenAPI views, which offer several,
    still choose by it. Bodies are still read only as JSON (DRF's parser choice is unchanged)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        if len(renderers) == 1:
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)
