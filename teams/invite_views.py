"""The invite link opened in a browser: GET shows the team, who invited and the expiry, and lets
the person sign in or sign up; POST (session, CSRF) joins and lands on the team's page."""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core.errors import Gone
from teams import selectors, services
from teams.views import team_page_url


def _viewer_is_member(request, team) -> bool:
    return request.user.is_authenticated and selectors.is_member(viewer=request.user, team_id=team.pk)


def _gone(request, invite, state):
    # Unknown codes are a 404; links that existed but can no longer be used are a 410.
    status = 404 if state == "unknown" else 410
    is_member = invite is not None and _viewer_is_member(request, invite.team)
    context = {"state": state, "invite": invite, "is_member": is_member}
    if is_member:
        context["team_url"] = team_page_url(invite.team)
    return render(request, "teams/invite_gone.html", context, status=status)


@never_cache
@require_http_methods(["GET", "POST"])
def invite_page(request, code):
    invite = selectors.invite_get_for_page(code=code)
    state = invite.state() if invite is not None else "unknown"
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

    return render(
        request,
        "teams/invite.html",
        {
            "invite": invite,
            "team": invite.team,
            "is_member": _viewer_is_member(request, invite.team),
            "team_url": team_page_url(invite.team),
            "login_url": _with_next(reverse("account_login"), request.path),
            "signup_url": _with_next(reverse("account_signup"), request.path),
            "join_command": f"ltm join {selectors.invite_url(request, code)}",
        },
    )


def _with_next(url: str, next_path: str) -> str:
    return f"{url}?{urlencode({'next': next_path})}"
