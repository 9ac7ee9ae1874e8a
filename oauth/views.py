"""The OAuth server's pages: the device-flow pages `ltm auth` opens, and the dashboard's Tokens &
devices page (personal API tokens beside the devices and apps signed in through OAuth) with its
device and connected-app actions."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from oauth2_provider.scopes import get_scopes_backend

from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.forms import TokenCreateForm
from accounts.mfa import second_factor_asked, second_factor_passed
from core.api import http_status
from core.dashboard import Confirm, dashboard_action
from core.errors import BadRequest, HubError
from core.http import client_address
from core.links import hub_url
from oauth import selectors, services
from oauth.device_flow import USER_CODE_LENGTH, format_user_code, parse_user_agent, same_network

# The device flow: enter the code, compare it, Approve or Deny.
#
# Sign-in comes first (login_required sends the person to sign in or sign up and back to the same
# URL, code included). The code travels in the query string (`/device?user_code=...`, which is
# also the `verification_uri_complete` the client opens), so the entry form is a GET and the
# confirmation page is the answer to it; only the decision is a POST. These pages replace the
# toolkit's /device views: those match codes exactly, do not show the code and have no rate limit.

DEVICE_OUTCOMES = ("approved", "denied")


def _device_enter_page(request, *, code="", problem: HubError | None = None):
    context = {"code": code, "problem": problem and problem.message, "code_length": USER_CODE_LENGTH}
    return render(request, "device/enter.html", context, status=http_status(problem) if problem else 200)


def _device_page_of_decision(request) -> str:
    """Where a decision posted before the second factor was shown comes back to: its code's page."""
    return f"{reverse('device')}?{urlencode({'user_code': request.POST.get('user_code', '')})}"


@never_cache  # the confirmation page shows the code
@require_GET
@login_required
@second_factor_asked
def device_enter(request):
    raw = request.GET.get("user_code")
    if raw is None:
        return _device_enter_page(request)
    try:
        grant = selectors.device_grant_find(viewer=request.user, address=client_address(request), raw_code=raw)
    except HubError as problem:
        return _device_enter_page(request, code=raw.strip()[:32], problem=problem)

    application = selectors.device_grant_application(grant=grant)
    descriptions = get_scopes_backend().get_all_scopes()
    details = selectors.device_grant_details(grant=grant)
    browser_address = client_address(request)
    return render(
        request,
        "device/confirm.html",
        {
            "grant": grant,
            "user_code": grant.user_code,
            "display_code": format_user_code(grant.user_code),
            "client_name": application.name if application else grant.client_id,
            "scopes": [(scope, descriptions.get(scope, scope)) for scope in grant.scope.split()],
            "details": details,
            "client_label": parse_user_agent(details.user_agent)[0] if details else "",
            "browser_address": browser_address,
            # False only when both addresses are known and differ (see device_flow.same_network)
            "other_network": details is not None and same_network(details.requested_from, browser_address) is False,
        },
    )


@require_POST
@login_required
@second_factor_asked(back=_device_page_of_decision)
def device_decide(request):
    action = request.POST.get("action")
    if action not in ("approve", "deny"):
        return _device_enter_page(request, problem=BadRequest("Choose Approve or Deny."))
    try:
        services.device_grant_decide(
            actor=request.user,
            address=client_address(request),
            raw_code=request.POST.get("user_code", ""),
            approve=action == "approve",
            second_factor=second_factor_passed(request),
        )
    except HubError as problem:
        return _device_enter_page(request, problem=problem)
    return redirect(reverse("device_done", args=["approved" if action == "approve" else "denied"]))


@require_GET
@login_required
def device_done(request, outcome):
    if outcome not in DEVICE_OUTCOMES:
        raise Http404
    return render(request, "device/done.html", {"approved": outcome == "approved"})


# Dashboard: tokens, devices and connected apps


@never_cache
@login_required
def tokens(request):
    """Personal API tokens and the devices signed in through `ltm auth`.

    A new token's plaintext is shown in the answer to the POST that made it (201), and nowhere
    else: it is never kept in the session, where a reader of the session table could use it.
    """
    form = TokenCreateForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        try:
            token, plaintext = account_services.api_token_create(
                actor=request.user,
                name=form.cleaned_data["name"],
                scope=form.cleaned_data["scope"],
                expires_in_days=form.expires_in_days(),
                second_factor=second_factor_passed(request),
            )
        except HubError as exc:
            form.add_error("name", exc.message)
        else:
            new_token = {"name": token.name, "plaintext": plaintext, "hint": token.checksum_hint}
            messages.success(request, f"Token “{token.name}” created. Copy it now: it is shown only once.")
            form = TokenCreateForm()
    context = {
        "form": form,
        "new_token": new_token,
        "api_tokens": account_selectors.api_token_list(viewer=request.user),
        "devices": selectors.device_list(viewer=request.user),
        "connected_apps": selectors.connected_app_list(viewer=request.user),
        "hub_url": hub_url(request),
    }
    status = 400 if form.errors else 201 if new_token else 200
    return render(request, "accounts/tokens.html", context, status=status)


def _from_device_row(request, device_id):
    """Where a device's actions start: the Tokens & devices page. Someone else's device is a 404,
    not the question; the actions take the device's id and the device."""
    device = selectors.device_get(viewer=request.user, device_id=device_id)
    if device is None:
        raise Http404("device not found")
    return reverse("tokens"), {"device_id": device_id, "device": device}


# The questions some actions ask first.
SIGN_OUT_DEVICE = Confirm(
    "Sign “{device.name}” out?",
    button="Revoke device",
    message="The ltm client on that device stops working until it runs `ltm auth` again.",
)

DISCONNECT_APP = Confirm(
    "Disconnect this app?",
    button="Disconnect",
    message="It stops working at once; to use it again, connect it again from the app.",
)


@dashboard_action(_from_device_row, confirm=SIGN_OUT_DEVICE)
def device_revoke(request, device_id, device):
    services.device_revoke(actor=request.user, device_id=device_id)
    return f"“{device.name}” signed out."


@dashboard_action(_from_device_row)
def device_rename(request, device_id, device):
    details = services.device_rename(actor=request.user, device_id=device_id, name=request.POST.get("name", ""))
    return f"Device renamed to “{details.name}”."


@dashboard_action("tokens", confirm=DISCONNECT_APP)
def connected_app_revoke(request, app_id):
    """Disconnect an app from the Tokens & devices page."""
    services.connected_app_revoke(actor=request.user, app_id=app_id)
    return "App disconnected."
