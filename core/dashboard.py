"""Small helpers shared by the dashboard's views (packets, teams, tokens, account pages).

Every action is a POST form with one shape, `dashboard_action`: ask first (destructive ones),
call one service, then a message and a redirect. Without JavaScript the question is a page;
with it, static/js/dashboard.js asks in a <dialog> instead and posts `confirmed=yes` straight away.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from core.api import http_status
from core.errors import HubError

CONFIRMED = "yes"


@dataclass(frozen=True)
class Confirm:
    """The question asked before a destructive action: a title, what happens, the button's label."""

    title: str
    message: str
    button: str
    danger: bool = True


def dashboard_action(
    request,
    *,
    call: Callable[[], object],
    success: str | Callable[[object], str],
    back: str,
    done: str | None = None,
    confirm: Confirm | None = None,
):
    """Ask (when `confirm` is given and the person has not confirmed yet), then `call()` the service.

    On success: the `success` message (a function of what `call` returned, when it needs that) and a
    redirect to `done` (default `back`). A refusal: its message and a redirect to `back`, the page the
    action started from (also the confirmation page's Cancel link); a 404 stays a 404.
    """
    if confirm is not None and request.POST.get("confirmed") != CONFIRMED:
        return confirmation_page(request, confirm, cancel_url=back)
    try:
        result = call()
    except HubError as exc:
        show_service_error(request, exc)
        return redirect(back)
    messages.success(request, success(result) if callable(success) else success)
    return redirect(done or back)


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
