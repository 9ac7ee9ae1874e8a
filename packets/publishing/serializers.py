"""Wire shapes of publishing."""

from rest_framework import serializers

from packets.serializers import PacketIdSerializer


class PublishedSerializer(PacketIdSerializer):
    public_url = serializers.URLField(help_text="the packet's public page; anyone with the link can read it")
