"""The dashboard's Webhooks pages: a person's (/webhooks) and a team's (/teams/<name>/webhooks), to
add one (its secret shown once, on the answer to the POST, never through the session), and a
webhook's page with its deliveries: test ping, replay, rotate, turn off and on, remove.

The rules are the services' and selectors': a stranger gets 404, a plain member of the team 403.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from core.dashboard import CONFIRMED, Confirm, confirmation_page, dashboard_action
from core.errors import Forbidden, HubError, NotFound
from core.links import hub_url
from teams.selectors import team_get_for_member
from webhooks import selectors, services
from webhooks.models import EVENTS, FORMATS, PERSONAL_EVENTS, STANDARD, WEBHOOK_PING

DELIVERIES_SHOWN = 50
REMOVE = Confirm("Remove this webhook?", "Nothing more is sent to it, and its deliveries are forgotten.", "Remove")
ROTATE_SAID = "The old secret still signs beside the new one for 24 hours: update your receiver before then."


class WebhookForm(forms.Form):
    """Adding a webhook; a person's hears no member events (those are a team's)."""

    url = forms.CharField(
        label="URL", max_length=services.URL_CHARS, widget=forms.URLInput(attrs={"placeholder": "https://"})
    )
    events = forms.MultipleChoiceField(
        choices=[(name, name) for name in EVENTS if name != WEBHOOK_PING], widget=forms.CheckboxSelectMultiple
    )
    format = forms.ChoiceField(
        choices=[(name, "Standard Webhooks (JSON)" if name == STANDARD else "Slack message") for name in FORMATS],
        initial=STANDARD,
    )
    description = forms.CharField(max_length=services.DESCRIPTION_CHARS, required=False)

    def __init__(self, *args, team=None, **kwargs):
        super().__init__(*args, **kwargs)
        if team is None:
            self.fields["events"].choices = [(name, name) for name in PERSONAL_EVENTS]


def _refused(exc: HubError):
    """A refusal of a page's subject: 404 and 403 as such, else None (shown on the form)."""
    if isinstance(exc, NotFound):
        raise Http404(exc.message)
    if isinstance(exc, Forbidden):
        raise PermissionDenied(exc.message)


def _team(request, name):
    try:
        team = team_get_for_member(viewer=request.user, name=name)
        return team, list(selectors.webhook_list(viewer=request.user, team=team))
    except HubError as exc:
        _refused(exc)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def webhook_list_page(request, name=None):
    """A person's webhooks (`name` None) or a team's, and the form to add one."""
    if name is None:
        team, webhooks = None, [hook for hook in selectors.webhook_list(viewer=request.user) if hook.team_id is None]
    else:
        team, webhooks = _team(request, name)
    form = WebhookForm(request.POST or None, team=team)
    new = None
    if request.method == "POST" and form.is_valid():
        try:
            webhook, secret = services.webhook_create(
                actor=request.user, team=team, hub_url=hub_url(request), **form.cleaned_data
            )
        except HubError as exc:
            _refused(exc)
            form.add_error(None, exc.message)
        else:
            new, form = {"webhook": webhook, "secret": secret}, WebhookForm(team=team)
            webhooks.append(webhook)
    context = {"team": team, "webhooks": webhooks, "form": form, "new": new}
    return render(request, "webhooks/list.html", context, status=400 if form.errors else 200)


def _webhook(request, webhook_id):
    try:
        return selectors.webhook_get(viewer=request.user, webhook_id=webhook_id)
    except HubError as exc:
        _refused(exc)


@never_cache
@login_required
def webhook_page(request, webhook_id, *, new_secret: str | None = None):
    webhook = _webhook(request, webhook_id)
    deliveries = selectors.delivery_list(viewer=request.user, webhook_id=webhook.pk, limit=DELIVERIES_SHOWN)
    context = {"webhook": webhook, "deliveries": deliveries, "new_secret": new_secret, "rotate_said": ROTATE_SAID}
    return render(request, "webhooks/detail.html", context)


@never_cache
@login_required
@require_POST
def webhook_rotate(request, webhook_id):
    """A new secret, shown on this answer only."""
    try:
        _, secret = services.webhook_rotate(actor=request.user, webhook_id=webhook_id)
    except HubError as exc:
        _refused(exc)
        raise
    return webhook_page(request, webhook_id, new_secret=secret)


def _from_webhook_page(request, webhook_id, **named):
    webhook = _webhook(request, webhook_id)
    return reverse("webhook-detail", args=[webhook.pk]), {"webhook": webhook, **named}


def _list_url(webhook) -> str:
    return reverse("team-webhooks", args=[webhook.team.name]) if webhook.team_id else reverse("webhooks")


@dashboard_action(_from_webhook_page)
def webhook_ping(request, webhook):
    services.webhook_ping(actor=request.user, webhook_id=webhook.pk)
    return "Ping sent: its delivery shows below in a moment."


@dashboard_action(_from_webhook_page)
def webhook_active(request, webhook):
    on = request.POST.get("active") == "on"
    services.webhook_update(actor=request.user, webhook_id=webhook.pk, active=on)
    return "The webhook is on." if on else "The webhook is off: nothing is sent to it."


@dashboard_action(_from_webhook_page)
def delivery_redeliver(request, webhook, delivery_id):
    services.delivery_redeliver(actor=request.user, webhook_id=webhook.pk, delivery_id=delivery_id)
    return f"Delivery {delivery_id} is sent again, with the same webhook-id."


@login_required
@require_POST
def webhook_delete(request, webhook_id):
    """Remove the webhook (asked first), then back to the list it was on."""
    webhook = _webhook(request, webhook_id)
    if request.POST.get("confirmed") != CONFIRMED:
        return confirmation_page(request, REMOVE, cancel_url=reverse("webhook-detail", args=[webhook.pk]))
    services.webhook_delete(actor=request.user, webhook_id=webhook.pk)
    messages.success(request, "The webhook was removed.")
    return redirect(_list_url(webhook))
