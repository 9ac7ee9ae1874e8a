"""Pages about people: claiming a web sign-in, revoking a personal API token and the account
page. (The Tokens & devices page is the OAuth server's: oauth.views.)"""

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import selectors, services
from accounts.forms import ClaimForm, DisplayNameForm
from core.dashboard import Confirm, dashboard_action
from core.errors import BadRequest, Conflict, Gone, HubError

# Claiming a web sign-in for an account made by `ltm join` (the link comes from
# POST /v1/account/claim-link, see accounts.api).


@never_cache
@require_http_methods(["GET", "POST"])
def claim_page(request, code):
    try:
        user = selectors.claim_code_user(code=code)
    except Gone as exc:
        return render(request, "accounts/claim_gone.html", {"message": exc.message}, status=410)

    form = ClaimForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.account_claim(
                code=code, email=form.cleaned_data["email"], password=form.cleaned_data["password1"]
            )
        except Gone as exc:
            return render(request, "accounts/claim_gone.html", {"message": exc.message}, status=410)
        except (BadRequest, Conflict) as exc:
            form.add_error(None, exc.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"You can now sign in on the web as {user.username} or {user.email}.")
            return redirect("/")
    return render(request, "accounts/claim.html", {"form": form, "claimed_user": user})


# Dashboard: a personal token, the account


def _from_token_row(request, token_id):
    """Where a token's actions start: the Tokens & devices page. Someone else's token is a 404,
    not the question; the actions take the token's id and its name."""
    token = selectors.api_token_get(viewer=request.user, token_id=token_id)
    if token is None:
        raise Http404("token not found")
    return reverse("tokens"), {"token_id": token_id, "name": token.name}


# The questions some actions ask first.
REVOKE_TOKEN = Confirm(
    "Revoke this token?",
    button="Revoke token",
    message="“{name}” stops working at once; any client using it has to sign in again.",
)

DELETE_ACCOUNT = Confirm(
    "Delete your account?",
    button="Delete my account",
    message="Your account, your tokens and your personal packets are deleted for good. "
    "Packets you pushed to teams stay with those teams.",
)


@dashboard_action(_from_token_row, confirm=REVOKE_TOKEN)
def token_revoke(request, token_id, name):
    services.api_token_revoke(actor=request.user, token_id=token_id)
    return f"Token “{name}” revoked."


@login_required
def account(request):
    """Email, password, display name, mail settings and account deletion."""
    form = DisplayNameForm(request.POST or None, initial={"display": request.user.display})
    if request.method == "POST" and form.is_valid():
        try:
            services.user_update_display(actor=request.user, display=form.cleaned_data["display"])
        except HubError as exc:
            form.add_error("display", exc.message)
        else:
            messages.success(request, "Display name saved.")
            return redirect("account")
    context = {
        "form": form,
        # Teams are an app above this one: their owner relation is reached from the user, not
        # imported. They block deleting the account until transferred or deleted.
        "owned_teams": request.user.owned_teams.order_by("name"),
    }
    return render(request, "accounts/account.html", context, status=400 if form.errors else 200)


@dashboard_action("account")
def account_share_mail(request):
    """The account page's checkbox: an unticked box is simply absent from the form."""
    share_mail = request.POST.get("share_mail") == "on"
    services.user_set_share_mail(actor=request.user, share_mail=share_mail)
    if share_mail:
        return "You will get a mail when someone shares a packet with you."
    return "No more mails about shares: they still show under Shared with me."


@dashboard_action("account", confirm=DELETE_ACCOUNT, done="home")
def account_delete(request):
    services.user_delete(actor=request.user)
    logout(request)
    return "Your account has been deleted."
