"""Wire shapes of teams, members and invites (section 3 of the protocol). The views build their
answers with these, and the OpenAPI description is generated from the same classes.

Request bodies are described here, but validated by teams.services (one rule and one message
for the API and the dashboard)."""

from rest_framework import serializers

from accounts.models import DISPLAY_MAX_LENGTH
from accounts.serializers import UserRefSerializer
from teams.models import TEAM_NAME_PATTERN


class TeamRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()


class TeamSerializer(TeamRefSerializer):
    owner_id = serializers.CharField()


class TeamListItemSerializer(TeamSerializer):
    created_at = serializers.DateTimeField()


class TeamCreatedSerializer(serializers.Serializer):
    team = TeamSerializer()


class TeamListSerializer(serializers.Serializer):
    teams = TeamListItemSerializer(many=True)


class TeamCreateRequestSerializer(serializers.Serializer):
    name = serializers.RegexField(TEAM_NAME_PATTERN, max_length=40)


class MemberSerializer(serializers.Serializer):
    user_id = serializers.CharField(source="user.id")
    display = serializers.CharField(source="user.display_name")
    email = serializers.EmailField(source="user.email", required=False, help_text="absent when the user has none")
    role = serializers.ChoiceField(choices=["owner", "member"])
    joined_at = serializers.DateTimeField()

    def to_representation(self, instance):
        item = super().to_representation(instance)
        if not item["email"]:
            del item["email"]
        return item


class MemberListSerializer(serializers.Serializer):
    members = MemberSerializer(many=True)


class InviteCreatedSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="48 hex characters, single use")
    url = serializers.URLField(help_text="<hub>/v1/invites/<code>, what `ltm join` takes")
    expires_at = serializers.DateTimeField()


class InviteSerializer(serializers.Serializer):
    """A pending invite (hub extension): its code is not stored, only a hash of it."""

    id = serializers.CharField()
    created_by = UserRefSerializer(allow_null=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class InviteListSerializer(serializers.Serializer):
    invites = InviteSerializer(many=True)


class InviteAcceptRequestSerializer(serializers.Serializer):
    """`{}`, or the name a new user is to be shown by."""

    display = serializers.CharField(required=False, allow_null=True, max_length=DISPLAY_MAX_LENGTH)


class InviteAcceptedSerializer(serializers.Serializer):
    user = UserRefSerializer()
    team = TeamRefSerializer()
    token = serializers.CharField(
        required=False, help_text="only when the call had no valid bearer: a new user's personal token"
    )

    def to_representation(self, instance):
        answer = super().to_representation(instance)
        if answer.get("token") is None:
            answer.pop("token", None)
        return answer
