"""The pages a person opens from `ltm auth`: enter the code, compare it, Approve or Deny.

Sign-in comes first (login_required sends the person to sign in or sign up and back to the same
URL, code included). The code itself travels in the query string (`/device?user_code=...`, which
is also the `verification_uri_complete` the client opens), so the entry form is a GET and the
confirmation page is the answer to it; only the decision is a POST. These pages replace the
toolkit's /device views: those match codes exactly, do not show the code and have no rate limit.
"""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from oauth2_provider.scopes import get_scopes_backend

from accounts import device

OUTCOMES = ("approved", "denied")


def client_address(request) -> str:
    """The caller's IP: behind a trusted proxy, the address the proxy saw (the last hop it added)."""
    if settings.LTM_TRUST_PROXY_HEADERS:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if forwarded:
            return forwarded[-1]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _enter_page(request, *, code="", problem=None, status=200):
    return render(
        request,
        "device/enter.html",
        {"code": code, "problem": problem, "code_length": device.USER_CODE_LENGTH},
        status=status,
    )


def _status_of(problem) -> int:
    return 429 if isinstance(problem, device.TooManyAttempts) else 400


@require_GET
@login_required
def device_enter(request):
    raw = request.GET.get("user_code")
    if raw is None:
        return _enter_page(request)
    try:
        grant = device.device_grant_find(user=request.user, address=client_address(request), raw_code=raw)
    except device.CodeProblem as problem:
        return _enter_page(request, code=raw.strip()[:32], problem=problem.message, status=_status_of(problem))

    application = device.application_for(grant)
    descriptions = get_scopes_backend().get_all_scopes()
    return render(
        request,
        "device/confirm.html",
        {
            "grant": grant,
            "user_code": grant.user_code,
            "display_code": device.format_user_code(grant.user_code),
            "client_name": application.name if application else grant.client_id,
            "scopes": [(scope, descriptions.get(scope, scope)) for scope in grant.scope.split()],
        },
    )


@require_POST
@login_required
def device_decide(request):
    action = request.POST.get("action")
    if action not in ("approve", "deny"):
        return _enter_page(request, problem="Choose Approve or Deny.", status=400)
    try:
        device.device_grant_decide(
            user=request.user,
            address=client_address(request),
            raw_code=request.POST.get("user_code", ""),
            approve=action == "approve",
        )
    except device.CodeProblem as problem:
        return _enter_page(request, problem=problem.message, status=_status_of(problem))
    return redirect(reverse("device_done", args=["approved" if action == "approve" else "denied"]))


@require_GET
@login_required
def device_done(request, outcome):
    if outcome not in OUTCOMES:
        raise Http404
    return render(request, "device/done.html", {"approved": outcome == "approved"})
