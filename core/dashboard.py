"""Small helpers shared by the dashboard's views (packets, teams, tokens, account pages).

Every action is a POST form with one shape, `dashboard_action`: ask first (destructive ones),
call one service, then a message and a redirect. Without JavaScript the question is a page;
with it, static/js/dashboard.js asks in a <dialog> instead and posts `confirmed=yes` straight away.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.api import http_status
from core.errors import HubError

CONFIRMED = "yes"


@dataclass(frozen=True)
class Confirm:
    """The question asked before a destructive action: a title, what happens, the button's label.

    Declared once, as a constant of the views' module; `{placeholders}` ("Leave {team.name}?") are
    filled in with what the action is about (see `dashboard_action`)."""

    title: str
    message: str
    button: str
    danger: bool = True

    def format(self, **values) -> "Confirm":
        return replace(self, title=self.title.format(**values), message=self.message.format(**values))


# What an action's `page` function returns: the URL of the page the action starts from, and the
# keyword arguments of the action (what it is about).
Page = Callable[..., tuple[str, dict]]


def dashboard_action(page: str | Page, *, confirm: Confirm | None = None, done: str | None = None):
    """Make a dashboard action of a function that does one thing and returns what to tell the person:

        @dashboard_action(_from_team_page, confirm=LEAVE_TEAM, done="team-list")
        def team_leave(request, team):
            services.team_leave(actor=request.user, team=team)
            return f"You left {team.name}."

    The view answers POST only, to a signed-in person.
    - `page`: where the action starts, and where a refusal or the question's Cancel goes back to.
      A URL name (the function then takes the URL's arguments as they are), or a function
      `page(request, **url_args)` returning that page's URL and the function's keyword arguments.
      It runs first, so that what the person may not see is a 404, never the question.
    - `confirm`: asked first unless the form says it was, filled in with those arguments.
    - `done`: the URL name to land on after success (default: back to the page).
    A refusal (a HubError, from the service or raised by the function over a bad form field)
    shows its message back on the page; a 404 stays a 404.
    """

    def decorate(act: Callable[..., str]):
        @login_required
        @require_POST
        @wraps(act)
        def view(request, **url_args):
            back, args = (reverse(page), url_args) if isinstance(page, str) else page(request, **url_args)
            if confirm is not None and request.POST.get("confirmed") != CONFIRMED:
                return confirmation_page(request, confirm.format(**args), cancel_url=back)
            try:
                message = act(request, **args)
            except HubError as exc:
                show_service_error(request, exc)
                return redirect(back)
            messages.success(request, message)
            return redirect(reverse(done) if done else back)

        return view

    return decorate


def confirmation_page(request, confirm: Confirm, *, cancel_url: str):
    """The page that asks; it posts the same fields back to the same URL, plus `confirmed=yes`."""
    fields = [(name, value) for name, value in request.POST.items() if name not in ("csrfmiddlewaretoken", "confirmed")]
    context = {
        "title": confirm.title,
        "message": confirm.message,
        "button": confirm.button,
        "danger": confirm.danger,
        "cancel_url": cancel_url,
        "fields": fields,
    }
    return render(request, "core/confirm.html", context)


def show_service_error(request, exc: HubError) -> None:
    """What a refused service call looks like on a page: a 404 stays a 404 (nothing is revealed);
    any other refusal becomes an error message for the next page."""
    if http_status(exc) == 404:
        raise Http404(exc.message)
    messages.error(request, exc.message)
