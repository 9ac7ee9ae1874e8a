"""The invite link opened in a browser: GET shows the team, who invited and the expiry, and lets
the person sign in or sign up; POST (session, CSRF) joins and lands on the team's page."""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from hub.errors import Gone
from teams import selectors, services
from teams.models import Membership


def team_page_url(team) -> str:
    try:
        return reverse("team-detail", kwargs={"name": team.name})
    except NoReverseMatch:  # the dashboard's team page is not mounted (yet)
        return f"/teams/{team.name}"


def _state(invite, now) -> str:
    if invite is None:
        return "unknown"
    if invite.used_at is not None:
        return "used"
    if invite.revoked_at is not None:
        return "revoked"
    if now >= invite.expires_at:
        return "expired"
    return "valid"


def _gone(request, invite, state):
    # Unknown codes are a 404; links that existed but can no longer be used are a 410.
    status = 404 if state == "unknown" else 410
    is_member = (
        invite is not None
        and request.user.is_authenticated
        and Membership.objects.filter(team=invite.team, user=request.user).exists()
    )
    context = {"state": state, "invite": invite, "is_member": is_member}
    if is_member:
        context["team_url"] = team_page_url(invite.team)
    return render(request, "teams/invite_gone.html", context, status=status)


@never_cache
@require_http_methods(["GET", "POST"])
def invite_page(request, code):
    invite = selectors.invite_get_for_page(code=code)
    state = _state(invite, timezone.now())
    if state != "valid":
        return _gone(request, invite, state)

    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(_with_next(reverse("account_login"), request.path))
        try:
            _, team, _ = services.invite_accept(code=code, user=request.user)
        except Gone:  # someone else used it between the page and the click
            return _gone(request, selectors.invite_get_for_page(code=code), "used")
        messages.success(request, f"You joined the team {team.name}.")
        return redirect(team_page_url(team))

    is_member = request.user.is_authenticated and Membership.objects.filter(
        team=invite.team, user=request.user
    ).exists()
    return render(
        request,
        "teams/invite.html",
        {
            "invite": invite,
            "team": invite.team,
            "is_member": is_member,
            "team_url": team_page_url(invite.team),
            "login_url": _with_next(reverse("account_login"), request.path),
            "signup_url": _with_next(reverse("account_signup"), request.path),
            "join_command": f"ltm join {selectors.invite_url(request, code)}",
        },
    )


def _with_next(url: str, next_path: str) -> str:
    return f"{url}?{urlencode({'next': next_path})}"
