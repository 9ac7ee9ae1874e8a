"""Wire shapes of teams, members and invites (section 3 of the protocol). The views build their
answers with these, and the OpenAPI description is generated from the same classes.

Request bodies and query parameters are read through these too (core.params): the edge checks
their shape (which fields, which JSON types, which choices) and hands typed values on. The rules
a service keeps for the API and the dashboard alike (a team name's pattern, an e-mail address, a
label's length once its whitespace is collapsed) stay in teams.services, with their one message;
here they are only described (`described=`)."""

from django.conf import settings
from rest_framework import serializers

from accounts.models import DISPLAY_MAX_LENGTH
from accounts.serializers import UserRefSerializer
from core.params import ChoiceParam, FlagField, TextField, WholeNumberField
from core.serializers import InstantField
from teams.models import (
    INVITE_LABEL_MAX_LENGTH,
    SCAN_LEVELS,
    TEAM_NAME_PATTERN,
    Membership,
    TeamEvent,
    strictest_scan,
)
from teams.selectors import EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT


class TeamRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()


class TeamSerializer(TeamRefSerializer):
    owner_id = serializers.CharField()
    share_outside = serializers.BooleanField(
        help_text="whether members may share the team's packets with people outside it (hub extension)"
    )
    secret_scan = serializers.SerializerMethodField(
        help_text="how the hub's secret scan treats the team's packets: off, flag or refuse (hub extension)"
    )

    require_mfa = serializers.BooleanField(
        help_text="whether members need a second factor to read the team's packets (hub extension)"
    )

    def get_secret_scan(self, team) -> str:
        return strictest_scan(settings.LTM_SECRET_SCAN, team.secret_scan)


class TeamListItemSerializer(TeamSerializer):
    created_at = InstantField()


class TeamCreatedSerializer(serializers.Serializer):
    team = TeamSerializer()


class TeamSettingsRequestSerializer(serializers.Serializer):
    """The settings to change; those left out stay as they are."""

    share_outside = FlagField(
        required=False, default=None, help_text="let members share the team's packets with people outside it"
    )
    secret_scan = ChoiceParam(
        SCAN_LEVELS,
        required=False,
        default=None,
        help_text="the secret scan for the team's packets: flag or refuse, never looser than the hub's",
    )
    require_mfa = FlagField(
        required=False,
        default=None,
        help_text="require a second factor of every member before the team's packets open to them",
    )


class MemberRefSerializer(serializers.Serializer):
    user_id = serializers.CharField(source="user.id")
    display = serializers.CharField(source="user.display_name")


class TeamSettingsSerializer(serializers.Serializer):
    team = TeamSerializer()
    without_second_factor = MemberRefSerializer(
        many=True,
        help_text="while require_mfa is on: the members whose account has no second factor yet",
    )


class TeamListSerializer(serializers.Serializer):
    teams = TeamListItemSerializer(many=True)


class TeamCreateRequestSerializer(serializers.Serializer):
    name = TextField(
        described={"maxLength": 40, "pattern": TEAM_NAME_PATTERN},
        error_messages={
            "required": "name is required: the team name",
            "invalid": "name must be a string: the team name; got {got}",
        },
    )


class MemberSerializer(serializers.Serializer):
    user_id = serializers.CharField(source="user.id")
    display = serializers.CharField(source="user.display_name")
    email = serializers.EmailField(source="user.email", required=False, help_text="absent when the user has none")
    role = serializers.ChoiceField(choices=[role for role, _ in Membership.ROLES])
    joined_at = InstantField()

    def to_representation(self, instance):
        item = super().to_representation(instance)
        if not item["email"]:
            del item["email"]
        return item


class MemberListSerializer(serializers.Serializer):
    members = MemberSerializer(many=True)


def _drop_blank(answer: dict, *fields: str) -> dict:
    for field in fields:
        if not answer.get(field):
            answer.pop(field, None)
    return answer


class InviteCreateRequestSerializer(serializers.Serializer):
    """`{}` (what the client sends) for a bare link; hub extensions: `email` mails the link (the
    owner and admins only), `label` says who a bare link is for."""

    email = TextField(required=False, described={"format": "email"})
    label = TextField(required=False, described={"maxLength": INVITE_LABEL_MAX_LENGTH})


class InviteCreatedSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="48 hex characters, single use")
    url = serializers.URLField(help_text="<hub>/v1/invites/<code>, what `ltm join` takes")
    expires_at = InstantField()
    email = serializers.EmailField(source="invite.email", required=False, help_text="hub extension: only when mailed")
    label = serializers.CharField(source="invite.label", required=False, help_text="hub extension: only when given")

    def to_representation(self, instance):
        return _drop_blank(super().to_representation(instance), "email", "label")


class InviteSerializer(serializers.Serializer):
    """A pending invite (hub extension): its code is not stored, only a hash of it."""

    id = serializers.CharField()
    created_by = UserRefSerializer(allow_null=True)
    created_at = InstantField()
    expires_at = InstantField()
    email = serializers.EmailField(required=False, help_text="the address it was mailed to, if any")
    label = serializers.CharField(required=False, help_text="who a bare link is for, if its maker said")
    mailed_at = InstantField(required=False, help_text="when the last mail with its link went out")

    def to_representation(self, instance):
        return _drop_blank(super().to_representation(instance), "email", "label", "mailed_at")


class InviteListSerializer(serializers.Serializer):
    invites = InviteSerializer(many=True)


class InviteAcceptRequestSerializer(serializers.Serializer):
    """`{}`, or the name a new user is to be shown by."""

    display = TextField(required=False, allow_null=True, described={"maxLength": DISPLAY_MAX_LENGTH})


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


class RoleRequestSerializer(serializers.Serializer):
    role = ChoiceParam(
        [Membership.ADMIN, Membership.MEMBER],
        error_messages={
            "invalid": 'role must be "admin" or "member" (ownership is transferred, not assigned); got {got}'
        },
    )


class TransferRequestSerializer(serializers.Serializer):
    user_id = TextField(help_text="the member offered the ownership")


class TransferSerializer(serializers.Serializer):
    to = UserRefSerializer(source="transfer_to")
    offered_at = InstantField(source="transfer_offered_at")


class TransferOfferedSerializer(serializers.Serializer):
    transfer = TransferSerializer(source="*")


class EventActorSerializer(serializers.Serializer):
    id = serializers.CharField(source="actor_id", allow_null=True, help_text="null once they left the hub")
    display = serializers.CharField(source="actor_name", help_text="their name when it happened")


class TeamEventSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="grows with time; pass it as `before` for older events")
    kind = serializers.ChoiceField(choices=[kind for kind, _ in TeamEvent.KINDS])
    actor = EventActorSerializer(source="*")
    created_at = InstantField()
    summary = serializers.CharField(help_text="what happened, in words, after the actor's name")
    detail = serializers.DictField(help_text="packet_id and goal, user_id and name, invite_id, email or label, by kind")


class TeamEventsQuerySerializer(serializers.Serializer):
    limit = WholeNumberField(
        min_value=1,
        max_value=EVENTS_MAX_LIMIT,
        default=EVENTS_DEFAULT_LIMIT,
        help_text=f"1 to {EVENTS_MAX_LIMIT}, default {EVENTS_DEFAULT_LIMIT}",
    )
    before = WholeNumberField(
        min_value=0,
        max_value=2**63 - 1,  # an event id is a 64-bit integer
        default=None,
        help_text="only events older than this event id",
        error_messages={"invalid": "before must be an event id (a positive whole number); got {got}"},
    )
    kind = ChoiceParam(
        [kind for kind, _ in TeamEvent.KINDS],
        required=False,
        help_text="only this kind",
        error_messages={"invalid": "unknown kind {got}; one of: {choices}"},
    )


class TeamEventListSerializer(serializers.Serializer):
    events = TeamEventSerializer(many=True)
    next_before = serializers.IntegerField(
        allow_null=True,
        help_text="pass as `before` for the next (older) page; null on the last page",
    )
