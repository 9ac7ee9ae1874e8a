"""Dashboard pages about the signed-in person: tokens and devices, and the account."""

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts import device, services
from core.dashboard import Confirm, dashboard_action
from accounts.forms import DisplayNameForm, TokenCreateForm
from core.errors import HubError
from core.links import hub_url
from teams.selectors import teams_owned

# The plaintext of a token just created waits here for the next page view, then is gone.
NEW_TOKEN_SESSION_KEY = "dashboard_new_token"


@login_required
def tokens(request):
    """Personal API tokens and the devices signed in through `ltm auth`."""
    form = TokenCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            token, plaintext = services.api_token_create(user=request.user, name=form.cleaned_data["name"])
        except HubError as exc:
            form.add_error("name", exc.message)
        else:
            request.session[NEW_TOKEN_SESSION_KEY] = {"name": token.name, "plaintext": plaintext}
            messages.success(request, f"Token “{token.name}” created. Copy it now: it is shown only once.")
            return redirect("tokens")
    context = {
        "form": form,
        "new_token": request.session.pop(NEW_TOKEN_SESSION_KEY, None) if request.method == "GET" else None,
        "api_tokens": request.user.api_tokens.all(),
        "devices": device.devices_for_user(viewer=request.user),
        "hub_url": hub_url(request),
    }
    return render(request, "accounts/tokens.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def token_revoke(request, token_id):
    token = request.user.api_tokens.filter(pk=token_id).first()
    if token is None:  # someone else's: 404, not the question
        raise Http404("token not found")
    name = token.name
    return dashboard_action(
        request,
        confirm=Confirm(
            "Revoke this token?", button="Revoke token",
            message=f"“{name}” stops working at once; any client using it has to sign in again.",
        ),
        call=lambda: services.api_token_revoke(user=request.user, token_id=token_id),
        success=f"Token “{name}” revoked.",
        back=reverse("tokens"),
    )


@login_required
@require_POST
def device_revoke(request, device_id):
    if not any(signed_in.id == device_id for signed_in in device.devices_for_user(viewer=request.user)):
        raise Http404("device not found")  # someone else's: 404, not the question
    return dashboard_action(
        request,
        confirm=Confirm(
            "Sign this device out?", button="Revoke device",
            message="The ltm client on that device stops working until it runs `ltm auth` again.",
        ),
        call=lambda: device.device_revoke(user=request.user, device_id=device_id),
        success="Device signed out.",
        back=reverse("tokens"),
    )


@login_required
def account(request):
    """Email, password, display name and account deletion."""
    form = DisplayNameForm(request.POST or None, initial={"display": request.user.display})
    if request.method == "POST" and form.is_valid():
        try:
            services.user_update_display(user=request.user, display=form.cleaned_data["display"])
        except HubError as exc:
            form.add_error("display", exc.message)
        else:
            messages.success(request, "Display name saved.")
            return redirect("account")
    context = {
        "form": form,
        "owned_teams": teams_owned(viewer=request.user),
    }
    return render(request, "accounts/account.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def account_delete(request):
    def delete_and_sign_out():
        services.user_delete(user=request.user)
        logout(request)

    return dashboard_action(
        request,
        confirm=Confirm(
            "Delete your account?", button="Delete my account",
            message="Your account, your tokens and your personal packets are deleted for good. "
            "Packets you pushed to teams stay with those teams.",
        ),
        call=delete_and_sign_out,
        success="Your account has been deleted.",
        back=reverse("account"),
        done=reverse("home"),
    )
