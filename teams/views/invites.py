"""Invites on the dashboard: a new link (or mail) from a team's page, and the invite link opened
in a browser."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from core.dashboard import show_service_error
from core.errors import Gone, HubError
from teams import selectors, services
from teams.views.pages import team_or_404, team_page, team_page_url


def invite_link(request):
    return lambda code: selectors.invite_url(request, code)


@never_cache
@login_required
@require_POST
def invite_create(request, name):
    """A bare link is shown in the answer to this POST (the team's page, 201) and nowhere else:
    it is never kept in the session, where a reader of the session table could use it. With an
    address, the link goes by mail instead and the page does not show it."""
    team = team_or_404(request, name)
    email = request.POST.get("email", "").strip()
    try:
        invite, code = services.invite_create(
            actor=request.user, team=team, email=email, label=request.POST.get("label", ""), link=invite_link(request)
        )
    except HubError as exc:
        show_service_error(request, exc)
        return redirect(team_page_url(team))
    if email:
        messages.success(request, f"Invite sent to {invite.email}. The link works once and expires in 7 days.")
        return redirect(team_page_url(team))
    messages.success(request, "Invite link created. Copy it now: it is shown only once.")
    new_invite = {"url": selectors.invite_url(request, code), "expires_at": invite.expires_at, "label": invite.label}
    return team_page(request, team, new_invite=new_invite, status=201)


# The invite link opened in a browser: GET shows the team, who invited and the expiry, and lets
# the person sign in or sign up; POST (session, CSRF) joins and lands on the team's page.


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
            _, team, _ = services.invite_accept(code=code, actor=request.user)
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
