"""The endpoint clients call about the account itself: the claim link of an account made by
`ltm join` (/v1/account/claim-link). /v1/me, which also tells which token the bearer holds, is
the OAuth server's (oauth.api)."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.serializers import ClaimLinkSerializer
from core.api import error_responses, no_store
from core.links import external_url


@extend_schema_view(
    post=extend_schema(
        summary="A link to give this account an email and a password (hub extension)",
        description="For an account made by `ltm join`, which has neither; 409 once it has a password.",
        request=None,
        responses={201: ClaimLinkSerializer, **error_responses(409)},
    ),
)
@no_store  # the answer holds the claim link
class ClaimLinkApi(APIView):
    """POST /v1/account/claim-link (bearer) → 201 {"url", "expires_at"}."""

    def post(self, request):
        code, expires_at = services.claim_code_create(actor=request.user)
        url = external_url(request, f"/claim/{code}")
        return Response(ClaimLinkSerializer({"url": url, "expires_at": expires_at}).data, status=201)
