"""Small helpers shared by the dashboard's views (packets, teams, tokens, account pages).

Destructive actions are POST forms that first answer with a confirmation page; with JavaScript,
static/js/dashboard.js asks in a <dialog> instead and posts `confirmed=yes` straight away.
"""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import render

from hub.errors import HubError

CONFIRMED = "yes"


def confirmation_page(request, *, title: str, message: str, button: str, cancel_url: str, danger: bool = True):
    """None once the person has confirmed this POST; otherwise the page that asks them to.

    The page posts the same fields back to the same URL, plus `confirmed=yes`.
    """
    if request.POST.get("confirmed") == CONFIRMED:
        return None
    fields = [(name, value) for name, value in request.POST.items() if name not in ("csrfmiddlewaretoken", "confirmed")]
    context = {
        "title": title, "message": message, "button": button, "cancel_url": cancel_url,
        "danger": danger, "fields": fields,
    }
    return render(request, "accounts/confirm.html", context)


def show_service_error(request, exc: HubError) -> None:
    """What a refused service call looks like on a page: a 404 stays a 404 (nothing is revealed);
    any other refusal becomes an error message for the next page."""
    if exc.status == 404:
        raise Http404(exc.message)
    messages.error(request, exc.message)
