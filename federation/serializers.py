"""Wire shapes of federation: the identity document and the inbox's messages (docs/federation.md)."""

from rest_framework import serializers


class SoftwareSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()


class PublicKeySerializer(serializers.Serializer):
    kid = serializers.CharField(help_text="the key's RFC 7638 thumbprint (base64url)")
    kty = serializers.ChoiceField(["OKP"])
    crv = serializers.ChoiceField(["Ed25519"])
    x = serializers.CharField(help_text="the public key (base64url, 32 bytes)")


class HubDocumentSerializer(serializers.Serializer):
    url = serializers.URLField(help_text="the hub's public base URL")
    name = serializers.CharField()
    protocol = serializers.CharField(help_text="the ltm protocol version the hub speaks")
    software = SoftwareSerializer()
    inbox = serializers.URLField(help_text="where other hubs POST their signed messages")
    keys = PublicKeySerializer(many=True, help_text="the keys the hub signs with: the current one and the next")


class PacketSignatureSerializer(serializers.Serializer):
    kid = serializers.CharField(help_text="a key of the sender's hub")
    alg = serializers.ChoiceField(["ed25519"])
    sig = serializers.CharField(help_text="Ed25519 over the packet's RFC 8785 canonical JSON, base64url")


class MessageSerializer(serializers.Serializer):
    type = serializers.ChoiceField(["share", "update", "withdraw"])
    id = serializers.CharField(help_text="unique per sending hub: a second message with it is refused (replay)")
    from_ = serializers.CharField(help_text="username@host of the sender")
    to = serializers.CharField(help_text="the recipient's username on the receiving hub")
    note = serializers.CharField(required=False, help_text="a word for the recipient")
    packet = serializers.JSONField(required=False, help_text="share and update: the packet (v0.1 or v0.2)")
    packet_signature = PacketSignatureSerializer(required=False, help_text="share and update")
    packet_id = serializers.CharField(required=False, help_text="withdraw: the packet withdrawn")

    def get_fields(self):
        return {("from" if name == "from_" else name): field for name, field in super().get_fields().items()}


class AcceptedSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="the message's id")
    type = serializers.ChoiceField(["share", "update", "withdraw"], help_text="the message's type, applied")
