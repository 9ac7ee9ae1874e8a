import hashlib
from datetime import timedelta

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from core.ids import new_id

TEAM_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,39}$"
# How the hub's secret scan treats a pushed packet that looks like it carries secrets, loosest
# first: not scanned, stored and flagged (quarantined), or refused.
SCAN_OFF, SCAN_FLAG, SCAN_REFUSE = "off", "flag", "refuse"
SCAN_LEVELS = (SCAN_OFF, SCAN_FLAG, SCAN_REFUSE)


def strictest_scan(*levels: str) -> str:
    """The strictest of the levels given ("" counts as no opinion)."""
    return max((level for level in levels if level), key=SCAN_LEVELS.index, default=SCAN_FLAG)


def person_link(related_name: str, *, blank: bool = True) -> models.ForeignKey:
    """A link to a person that does not hold their account: emptied (NULL) when the account is
    deleted, while the row that names them stays."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=blank, related_name=related_name
    )


class Team(models.Model):
    """A fixed set of people who share packets. Names are unique on a hub."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    name = models.CharField(max_length=40, unique=True, validators=[RegexValidator(TEAM_NAME_PATTERN)])
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_teams")
    created_at = models.DateTimeField(auto_now_add=True)
    # Ownership offered to another member, who must accept it; cleared when they accept or
    # decline, the owner withdraws it, or that member leaves.
    transfer_to = person_link("teams_offered")
    transfer_offered_at = models.DateTimeField(null=True, blank=True)
    # Whether members may share the team's packets with people outside it, by name (the owner
    # and admins decide; off until they do).
    share_outside = models.BooleanField(default=False)
    # The hub's secret scan for this team's packets: "" follows the hub (LTM_SECRET_SCAN); a team
    # may only be stricter than the hub (SCAN_LEVELS, loosest first).
    secret_scan = models.CharField(max_length=8, blank=True, choices=[(level, level) for level in SCAN_LEVELS])
    # Members must have a second factor (teams.second_factor): until they add one, the team's
    # packets stay closed to them in the dashboard, and to tokens not issued after a sign-in
    # with it.
    require_mfa = models.BooleanField(default=False)

    class Meta:
        # The read rule asks, for a viewer without a second factor, which teams require one:
        # read off this small index, never by scanning the teams.
        indexes = [
            models.Index(fields=["id"], condition=models.Q(require_mfa=True), name="team_requires_mfa"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    OWNER = "owner"
    ADMIN = "admin"
    MEMBER = "member"
    ROLES = [(OWNER, "owner"), (ADMIN, "admin"), (MEMBER, "member")]
    # Who may run the team day to day: invite by e-mail, revoke invites, remove plain members,
    # delete or publish any team packet.
    MANAGERS = (OWNER, ADMIN)

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=ROLES, default=MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="one_membership_per_person")]
        ordering = ["joined_at"]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


INVITE_LIFETIME = timedelta(days=7)
INVITE_LABEL_MAX_LENGTH = 80


def invite_code_hash(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


class InviteQuerySet(models.QuerySet):
    def usable(self, now=None):
        """Invites that can still be accepted: unused, unrevoked and unexpired."""
        now = now or timezone.now()
        return self.filter(used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now)


class Invite(models.Model):
    """A single-use link into a team, valid for 7 days after it was minted.

    Only the sha256 of the code is stored: the code is a credential (whoever holds it may join),
    and looking it up by hash is all the hub ever needs (the accept call and the browser page
    both arrive with the code). The plaintext is returned once, when the invite is created.
    """

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invites")
    code_hash = models.CharField(max_length=64, unique=True)
    created_by = person_link("invites_created", blank=False)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = person_link("invites_used")
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Who it is for: the address it was mailed to, or a label given with a bare link.
    email = models.EmailField(blank=True)
    label = models.CharField(max_length=INVITE_LABEL_MAX_LENGTH, blank=True)
    mailed_at = models.DateTimeField(null=True, blank=True, help_text="When the last mail with its link went out.")

    objects = InviteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"invite {self.id} to {self.team_id}"

    def state(self, now=None) -> str:
        """ "used", "revoked", "expired" or "valid" (the first that applies)."""
        if self.used_at is not None:
            return "used"
        if self.revoked_at is not None:
            return "revoked"
        if (now or timezone.now()) >= self.expires_at:
            return "expired"
        return "valid"

    def is_usable(self, now=None) -> bool:
        return self.state(now) == "valid"


class TeamEvent(models.Model):
    """One line of a team's activity log, append-only.

    It outlives what it mentions: the person is a nullable link plus the name they had then, and
    a packet is named by its id (text, not a foreign key) and goal in `detail`. Only deleting the
    team deletes its log. Ids grow with time, so the log pages by id (keyset pagination).
    """

    PACKET_PUSHED = "packet.pushed"
    PACKET_REPUSHED = "packet.repushed"
    PACKET_DELETED = "packet.deleted"
    PACKET_PUBLISHED = "packet.published"
    PACKET_UNPUBLISHED = "packet.unpublished"
    PACKET_MOVED_IN = "packet.moved_in"
    PACKET_MOVED_OUT = "packet.moved_out"
    PACKET_SHARED = "packet.shared"
    PACKET_UNSHARED = "packet.unshared"
    PACKET_FLAGGED = "packet.flagged"
    FINDING_CLEARED = "finding.cleared"
    MEMBER_JOINED = "member.joined"
    MEMBER_LEFT = "member.left"
    MEMBER_REMOVED = "member.removed"
    MEMBER_PROMOTED = "member.promoted"
    MEMBER_DEMOTED = "member.demoted"
    INVITE_CREATED = "invite.created"
    INVITE_ACCEPTED = "invite.accepted"
    INVITE_REVOKED = "invite.revoked"
    INVITE_RESENT = "invite.resent"
    OWNERSHIP_OFFERED = "ownership.offered"
    OWNERSHIP_TRANSFERRED = "ownership.transferred"
    SETTINGS_CHANGED = "settings.changed"
    WEBHOOK_ADDED = "webhook.added"
    WEBHOOK_CHANGED = "webhook.changed"
    WEBHOOK_REMOVED = "webhook.removed"
    WEBHOOK_TURNED_OFF = "webhook.turned_off"
    KINDS = [
        (PACKET_PUSHED, "packet pushed"),
        (PACKET_REPUSHED, "packet re-pushed"),
        (PACKET_DELETED, "packet deleted"),
        (PACKET_PUBLISHED, "packet published"),
        (PACKET_UNPUBLISHED, "packet unpublished"),
        (PACKET_MOVED_IN, "packet moved in"),
        (PACKET_MOVED_OUT, "packet moved out"),
        (PACKET_SHARED, "packet shared"),
        (PACKET_UNSHARED, "packet unshared"),
        (PACKET_FLAGGED, "packet flagged by the secret scan"),
        (FINDING_CLEARED, "secret-scan finding cleared"),
        (MEMBER_JOINED, "member joined"),
        (MEMBER_LEFT, "member left"),
        (MEMBER_REMOVED, "member removed"),
        (MEMBER_PROMOTED, "member promoted"),
        (MEMBER_DEMOTED, "member demoted"),
        (INVITE_CREATED, "invite created"),
        (INVITE_ACCEPTED, "invite accepted"),
        (INVITE_REVOKED, "invite revoked"),
        (INVITE_RESENT, "invite resent"),
        (OWNERSHIP_OFFERED, "ownership offered"),
        (OWNERSHIP_TRANSFERRED, "ownership transferred"),
        (SETTINGS_CHANGED, "settings changed"),
        (WEBHOOK_ADDED, "webhook added"),
        (WEBHOOK_CHANGED, "webhook changed"),
        (WEBHOOK_REMOVED, "webhook removed"),
        (WEBHOOK_TURNED_OFF, "webhook turned off by the hub"),
    ]

    id = models.BigAutoField(primary_key=True)
    # Deleted with the team (by Django), but without a database constraint: checking one would
    # lock the team row, and a packet change that writes its line while holding the packet's row
    # would then deadlock against a team deletion (which holds the team and waits for its
    # packets). Lines are written with the change they record, so none outlives its team.
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="events", db_constraint=False)
    actor = person_link("+")
    actor_name = models.CharField(max_length=150, blank=True, help_text="The actor's display name at the time.")
    kind = models.CharField(max_length=32, choices=KINDS)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["team", "-id"], name="team_event_newest"),
            models.Index(fields=["team", "kind", "-id"], name="team_event_kind_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} in {self.team_id} by {self.actor_name}"

    @property
    def summary(self) -> str:
        """What happened, as a phrase after the actor's name: "pushed packet 01J… (goal)"."""
        d = self.detail or {}
        packet = f"packet {d.get('packet_id', '?')}" + (f" ({d['goal']})" if d.get("goal") else "")
        person = d.get("name") or "someone"
        invitee = d.get("email") or (f"“{d['label']}”" if d.get("label") else "")
        phrases = {
            self.PACKET_PUSHED: f"pushed {packet}",
            self.PACKET_REPUSHED: f"re-pushed {packet}",
            self.PACKET_DELETED: f"deleted {packet}",
            self.PACKET_PUBLISHED: f"published {packet}",
            self.PACKET_UNPUBLISHED: f"unpublished {packet}",
            self.PACKET_MOVED_IN: f"moved {packet} into the team",
            self.PACKET_MOVED_OUT: f"moved {packet} out of the team",
            self.PACKET_SHARED: f"shared {packet} with {person}",
            self.PACKET_UNSHARED: f"ended the share of {packet} with {person}",
            # Pushed and flagged at once, or flagged by a rescan of stored packets (nobody acting).
            self.PACKET_FLAGGED: f"pushed {packet}; the secret scan flagged it"
            if self.actor_name
            else f"the secret scan flagged {packet}",
            self.FINDING_CLEARED: f"cleared the secret-scan findings of {packet}: {d.get('reason', '')}",
            self.MEMBER_JOINED: "joined the team"
            + (f" through single sign-on ({d['domain']})" if d.get("via") == "sso" else ""),
            self.MEMBER_LEFT: "left the team",
            self.MEMBER_REMOVED: f"removed {person}",
            self.MEMBER_PROMOTED: f"made {person} an admin",
            self.MEMBER_DEMOTED: f"made {person} a plain member",
            self.INVITE_CREATED: f"created an invite for {invitee}" if invitee else "created an invite link",
            self.INVITE_ACCEPTED: f"accepted the invite for {invitee}" if invitee else "accepted an invite link",
            self.INVITE_REVOKED: f"revoked the invite for {invitee}" if invitee else "revoked an invite link",
            self.INVITE_RESENT: f"resent the invite to {invitee}",
            self.OWNERSHIP_OFFERED: f"offered the ownership to {person}",
            self.OWNERSHIP_TRANSFERRED: f"took over the ownership from {d.get('from_name') or 'the previous owner'}",
            self.SETTINGS_CHANGED: _settings_phrase(d),
            # A webhook by its host only: its URL may carry a credential (a Slack address does).
            self.WEBHOOK_ADDED: f"added a webhook to {d.get('host')} ({d.get('events', '')})",
            self.WEBHOOK_CHANGED: f"changed the webhook to {d.get('host')} ({d.get('changed', '')})",
            self.WEBHOOK_REMOVED: f"removed the webhook to {d.get('host')}",
            self.WEBHOOK_TURNED_OFF: f"the hub turned off the webhook to {d.get('host')}: {d.get('reason', '')}",
        }
        return phrases.get(self.kind, self.kind)


def _settings_phrase(detail: dict) -> str:
    said = {
        ("share_outside", True): "allowed sharing packets outside the team",
        ("share_outside", False): "stopped sharing packets outside the team",
        ("require_mfa", True): "required a second factor of every member",
        ("require_mfa", False): "stopped requiring a second factor",
    }
    return "; ".join(said.get(item, f"set {item[0]} to {item[1]}") for item in detail.items()) or "changed settings"
