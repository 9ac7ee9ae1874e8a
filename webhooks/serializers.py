"""Wire shapes of webhooks and their deliveries: the answers, and the bodies and query parameters
read at the edge (core.params). The rules on values (a URL the hub would call, known event names,
lengths) are webhooks.services', shared with the dashboard; here they are described."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.params import ChoiceParam, FlagField, TextField, WholeNumberField
from core.serializers import InstantField
from webhooks.models import EVENTS, FORMATS, STANDARD, Delivery
from webhooks.selectors import DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT
from webhooks.services import DESCRIPTION_CHARS, URL_CHARS

EVENTS_DESCRIBED = {"type": "array", "items": {"type": "string", "enum": list(EVENTS)}, "minItems": 1}


@extend_schema_field(EVENTS_DESCRIBED)
class EventsField(serializers.Field):
    """The events, as sent: webhooks.services checks each name (a 400 lists the known ones)."""

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


class WebhookSerializer(serializers.Serializer):
    id = serializers.CharField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENTS))
    team = serializers.CharField(source="team.name", allow_null=True, default=None, help_text="null: a personal one")
    description = serializers.CharField()
    format = serializers.ChoiceField(choices=FORMATS)
    active = serializers.BooleanField(help_text="false once turned off, by a person or by the hub")
    off_reason = serializers.CharField(
        help_text="why the hub turned it off: gone (its URL answered 410) or failing (3 days of failed calls)"
    )
    created_at = InstantField()


class WebhookCreatedSerializer(WebhookSerializer):
    """A webhook with its new secret, which the context brings (the model keeps it encrypted)."""

    secret = serializers.SerializerMethodField(help_text="`whsec_` and base64: shown once, never again")

    def get_secret(self, webhook) -> str:
        return self.context["secret"]


class WebhookListSerializer(serializers.Serializer):
    webhooks = WebhookSerializer(many=True)


class WebhookCreateRequestSerializer(serializers.Serializer):
    url = TextField(
        described={"maxLength": URL_CHARS, "format": "uri"},
        help_text="http(s); refused (400) when its host resolves to a non-public address the operator did not allow",
    )
    events = EventsField(help_text="the events it hears (an unknown name is a 400 listing the known ones)")
    team = TextField(required=False, default=None, help_text="a team the caller owns or administers; null: personal")
    description = TextField(required=False, default="", described={"maxLength": DESCRIPTION_CHARS})
    format = ChoiceParam(FORMATS, required=False, default=STANDARD, help_text="slack: a Slack message `{text}`")


class WebhookUpdateRequestSerializer(serializers.Serializer):
    """What to change; what is left out stays."""

    url = TextField(required=False, default=None, described={"maxLength": URL_CHARS, "format": "uri"})
    events = EventsField(required=False, default=None)
    active = FlagField(required=False, default=None, help_text="false turns it off, true on again")
    description = TextField(required=False, default=None, described={"maxLength": DESCRIPTION_CHARS})


class WebhookListQuerySerializer(serializers.Serializer):
    team = TextField(required=False, default=None, help_text="only this team's (its owner and admins)")


class DeliverySerializer(serializers.Serializer):
    id = serializers.CharField(help_text="the `webhook-id` header, the same on every attempt")
    event = serializers.CharField()
    status = serializers.ChoiceField(choices=[status for status, _ in Delivery.STATUSES])
    attempts = serializers.IntegerField()
    response_status = serializers.IntegerField(allow_null=True)
    error = serializers.CharField(
        help_text="why the last attempt got no answer (a timeout, a refused address); empty when it got one"
    )
    created_at = InstantField()
    next_attempt_at = InstantField(allow_null=True)


class DeliveryListSerializer(serializers.Serializer):
    deliveries = DeliverySerializer(many=True)


class DeliveryListQuerySerializer(serializers.Serializer):
    limit = WholeNumberField(
        min_value=1,
        max_value=DELIVERIES_MAX_LIMIT,
        default=DELIVERIES_DEFAULT_LIMIT,
        help_text=f"1 to {DELIVERIES_MAX_LIMIT}, default {DELIVERIES_DEFAULT_LIMIT}",
    )
