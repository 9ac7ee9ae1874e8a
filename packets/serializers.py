"""Wire shapes of packets (section 3 of the protocol). The views build their answers with these,
and the OpenAPI description is generated from the same classes."""

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers

from core.serializers import InstantField
from ltm.protocol.packet import SUPPORTED_VERSIONS, schema


class PacketSerializer(serializers.Serializer):
    """A packet, exactly as pushed and served. It stands for the protocol's own JSON Schemas in
    the OpenAPI description (see PacketSchema below); the hub validates packets with
    ltm.protocol.packet and serves the stored body as it is, so this never reads or writes one."""


class PacketSchema(OpenApiSerializerExtension):
    """The packet body as `oneOf` the v0.1 and v0.2 JSON Schemas of ltm.protocol, each embedded
    as a component (the OpenAPI document is 3.1, whose schemas are JSON Schema 2020-12)."""

    target_class = PacketSerializer

    def map_serializer(self, auto_schema, direction):
        refs = []
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
            refs.append(component.ref)
        return {"oneOf": refs}


class PacketIdSerializer(serializers.Serializer):
    id = serializers.CharField()


class PacketListItemSerializer(PacketIdSerializer):
    created_at = InstantField()
    goal = serializers.CharField()


class PacketListSerializer(serializers.Serializer):
    packets = PacketListItemSerializer(many=True, help_text="newest first")


class PublishedSerializer(PacketIdSerializer):
    public_url = serializers.URLField(help_text="the packet's public page; anyone with the link can read it")


class ThreadItemSerializer(PacketListItemSerializer):
    parent_id = serializers.CharField(allow_null=True, help_text="the packet it continues; null for none")
    team = serializers.CharField(allow_null=True, help_text="the team's name; null for a personal packet")


class ThreadSerializer(serializers.Serializer):
    packets = ThreadItemSerializer(many=True, help_text="oldest first")


class SearchResultSerializer(PacketListItemSerializer):
    team = serializers.CharField(
        allow_null=True, source="team_name", help_text="the team's name; null for a personal packet"
    )
    snippet = serializers.CharField(help_text="plain text around the match")
    score = serializers.FloatField(help_text="0 to 1, higher is better; 1 for the packet whose id was searched")


class SearchResultsSerializer(serializers.Serializer):
    results = SearchResultSerializer(many=True, help_text="best first")
