"""Wire shapes of sharing (a hub extension): a packet handed to one person by name."""

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from accounts.serializers import UserRefSerializer
from core.params import ChoiceParam, TextField, WholeNumberField
from core.serializers import InstantField
from packets.models import SHARE_NOTE_MAX_LENGTH
from packets.sharing import selectors as shares


class ShareCreateRequestSerializer(serializers.Serializer):
    to = TextField(
        help_text="the username of the person to share with, or username@host for a person on another hub",
        error_messages={
            "required": "to is required: the username of the person to share with",
            "invalid": "to must be a string: a username; got {got}",
        },
    )
    note = TextField(
        required=False,
        default="",
        described={"maxLength": SHARE_NOTE_MAX_LENGTH},
        help_text="a word for the recipient; sharing again replaces it",
    )


class AnswersFrom:
    """`from` is a Python keyword: declared as from_, answered as from (in its place)."""

    def get_fields(self):
        return {("from" if name == "from_" else name): field for name, field in super().get_fields().items()}


class ShareSerializer(AnswersFrom, serializers.Serializer):
    id = serializers.CharField()
    packet_id = serializers.CharField()
    goal = serializers.CharField(source="packet.goal")
    from_ = UserRefSerializer(source="sender")
    to = UserRefSerializer(source="recipient")
    note = serializers.CharField(help_text="empty when none was given")
    created_at = InstantField()


class ShareCreatedSerializer(serializers.Serializer):
    share = ShareSerializer()


class ShareListItemSerializer(ShareSerializer):
    seen = serializers.SerializerMethodField(help_text="whether the recipient has read the packet since")

    def get_seen(self, share) -> bool:
        return share.seen_at is not None


class RemoteAddressSerializer(serializers.Serializer):
    address = serializers.CharField(help_text="username@host[:port]: the person on the other hub")


class RemoteShareSerializer(ShareSerializer):
    """A share with a person on another hub (federation): delivered once their hub took it."""

    to = RemoteAddressSerializer(source="*")
    state = serializers.ChoiceField(
        ("pending", "delivered", "failed"),
        help_text="pending until the other hub answers; failed with the reason it gave (or why it was not reached)",
    )
    reason = serializers.CharField(help_text="why it failed, or the last attempt's error while pending; else empty")


class RemoteShareCreatedSerializer(serializers.Serializer):
    share = RemoteShareSerializer()


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="ListedShare",
        serializers=[ShareListItemSerializer, RemoteShareSerializer],
        resource_type_field_name=None,
        many=True,
    )
)
class ListedShares(serializers.Field):
    """Shares with people here and, for `direction=out`, with people on other hubs."""

    def to_representation(self, shares):
        return [
            (RemoteShareSerializer if getattr(share, "remote", False) else ShareListItemSerializer)(share).data
            for share in shares
        ]


class ShareListSerializer(serializers.Serializer):
    shares = ListedShares(help_text="newest first")


class SharesQuerySerializer(serializers.Serializer):
    direction = ChoiceParam(
        (shares.IN, shares.OUT),
        required=False,
        default=shares.IN,
        help_text="in (the default): shared with the caller, their inbox; out: shared by the caller",
    )
    limit = WholeNumberField(
        min_value=1,
        max_value=shares.MAX_LIMIT,
        required=False,
        default=shares.DEFAULT_LIMIT,
        help_text=f"how many, newest first (default {shares.DEFAULT_LIMIT}, at most {shares.MAX_LIMIT})",
    )
