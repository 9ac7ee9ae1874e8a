"""The authorization server metadata (RFC 8414) as django-oauth-toolkit writes it, plus the device
authorization endpoint: the toolkit advertises the device grant but not where it starts, which
RFC 8628 §4 has the metadata say (`device_authorization_endpoint`)."""

import json
from urllib.parse import urlsplit

from django.http import JsonResponse
from django.urls import reverse
from oauth2_provider import views as dot_views

from oauth.device_flow import DEVICE_GRANT_TYPE


class ServerMetadataView(dot_views.OAuthServerMetadataView):
    def get(self, request, *args, **kwargs):
        answer = super().get(request, *args, **kwargs)
        data = json.loads(answer.content)
        if DEVICE_GRANT_TYPE in data.get("grant_types_supported", ()) and "token_endpoint" in data:
            # On the token endpoint's origin, however the toolkit chose it (the request, or the
            # configured issuer), so the two cannot point at different hosts.
            token = urlsplit(data["token_endpoint"])
            data["device_authorization_endpoint"] = (
                f"{token.scheme}://{token.netloc}{reverse('oauth_authorize_device')}"
            )
        metadata = JsonResponse(data)
        metadata["Access-Control-Allow-Origin"] = answer["Access-Control-Allow-Origin"]
        return metadata
