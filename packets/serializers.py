"""Wire shapes of the packet (section 3 of the protocol): the query parameters its views read
(through core.params) and the answers they write. The OpenAPI description is generated from the
same classes; the hottest answers are written directly (see packets.api), and
packets/tests/test_answers_match_serializers.py holds them to what these serializers write. Each
subject's shapes are in its subpackage's serializers."""

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers

from core.params import TextField, WholeNumberField
from core.serializers import InstantField
from ltm.protocol.packet import SUPPORTED_VERSIONS, schema
from packets import selectors
from packets.models import HELD_GOAL


def team_param(description: str) -> TextField:
    """?team=NAME: a team's name (absent or empty: no team; unknown or not the caller's: 404)."""
    return TextField(required=False, default=None, allow_blank=True, help_text=description)


class PushQuerySerializer(serializers.Serializer):
    team = team_param("a team's name: the team's packets instead of the caller's personal ones")


class ListQuerySerializer(PushQuerySerializer):
    limit = WholeNumberField(
        min_value=1,
        max_value=selectors.MAX_LIMIT,
        default=selectors.DEFAULT_LIMIT,
        fallback=True,  # the public Go client relies on it (protocol, section 3)
        help_text="1 to 500, default 50; anything else (not a number, 0 or less, over 500) means 50",
    )


class PacketSerializer(serializers.Serializer):
    """A packet, exactly as pushed and served. It stands for the protocol's own JSON Schemas in
    the OpenAPI description (see PacketSchema below); the hub validates packets with
    ltm.protocol.packet and serves the stored body as it is, so this never reads or writes one."""


class PacketSchema(OpenApiSerializerExtension):
    """The packet body as `oneOf` the v0.1 and v0.2 JSON Schemas of ltm.protocol, each embedded
    as a component (the OpenAPI document is 3.1, whose schemas are JSON Schema 2020-12). Each
    branch also pins `ltm_version`, as the hub routes a packet: the v0.1 schema takes any "N.N",
    so a v0.2 packet with none of v0.2's own fields would match both, and `oneOf` none."""

    target_class = PacketSerializer

    def map_serializer(self, auto_schema, direction):
        branches = []
        for version in SUPPORTED_VERSIONS:
            # "$schema" and "$id" would make the embedded schema a separate resource.
            body = {key: value for key, value in schema(version).items() if key not in ("$schema", "$id")}
            component = ResolvedComponent(
                name=f"PacketV{version.replace('.', '')}",
                type=ResolvedComponent.SCHEMA,
                object=f"packet-v{version}",
                schema=body,
            )
            auto_schema.registry.register_on_missing(component)
            branches.append({**component.ref, "properties": {"ltm_version": {"const": version}}})
        return {"oneOf": branches}


class PacketIdSerializer(serializers.Serializer):
    id = serializers.CharField()


class HeldField(serializers.BooleanField):
    """`held`: true, and there only, on a packet the hub's secret scan holds back from the caller
    (packets.models HELD); absent on every other."""

    def __init__(self, **kwargs):
        help_text = (
            f"only on a packet the hub's secret scan holds back from the caller: its goal reads "
            f'"{HELD_GOAL}" and reading it answers 409 until its findings are fixed or cleared'
        )
        super().__init__(required=False, help_text=help_text, **kwargs)

    def get_attribute(self, instance):
        if not super().get_attribute(instance):
            raise serializers.SkipField()
        return True


class PacketListItemSerializer(PacketIdSerializer):
    created_at = InstantField()
    goal = serializers.CharField()
    held = HeldField()


class PacketListSerializer(serializers.Serializer):
    packets = PacketListItemSerializer(many=True, help_text="newest first")


class ThreadItemSerializer(PacketListItemSerializer):
    parent_id = serializers.CharField(allow_null=True, help_text="the packet it continues; null for none")
    team = serializers.CharField(allow_null=True, help_text="the team's name; null for a personal packet")


class ThreadSerializer(serializers.Serializer):
    packets = ThreadItemSerializer(many=True, help_text="oldest first")


class FindingRefSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="the JSON path of the field, e.g. decisions[2].why")
    kind = serializers.CharField(help_text="what it looks like, e.g. aws-access-key (never the secret itself)")


class PushedSerializer(PacketIdSerializer):
    findings = FindingRefSerializer(
        many=True,
        required=False,
        help_text="only when the hub's secret scan found something: the packet is stored but quarantined",
    )
