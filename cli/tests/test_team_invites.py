"""`ltm invite --email/--label`, `ltm teams invites|invite-revoke|invite-resend` and `ltm teams log`
against the real hub, for the owner, an admin, a member and an outsider."""

import json

import pytest

from cli.testing.command_line import PACKET_ID, out_of, run, write_example


@pytest.fixture
def core(hub, capsys):
    """Team core, made by alice (signed in) with `ltm teams create`: the Team."""
    from teams.models import Team

    out_of(capsys, ["teams", "create", "core"])
    return Team.objects.get(name="core")


def join(hub, core, username, role):
    """`username` in team core with `role`, the client signed in as them."""
    from teams.models import Membership

    Membership.objects.create(team=core, user=hub.as_user(username), role=role)


def test_invite_by_email_and_by_label_with_the_rights_of_each_role(hub, core, capsys, mailoutbox):
    from teams.models import Invite, Membership

    url = out_of(capsys, ["invite", "-t", "core", "--email", "sam@example.org"]).strip()
    assert "/v1/invites/" in url and url in mailoutbox[0].body  # the live server commits: the task ran
    assert json.loads(hub.last("POST", "/v1/teams/core/invites").body) == {"email": "sam@example.org"}
    assert Invite.objects.get(email="sam@example.org").created_by.username == "alice"

    join(hub, core, "adam", Membership.ADMIN)
    out_of(capsys, ["invite", "-t", "core", "--email", "kim@example.org"])
    assert [m.to for m in mailoutbox] == [["sam@example.org"], ["kim@example.org"]]

    join(hub, core, "bob", Membership.MEMBER)
    err = run(capsys, ["invite", "-t", "core", "--email", "lee@example.org"], code=1).err
    assert "only the team owner or an admin can do this" in err
    assert "/v1/invites/" in out_of(capsys, ["invite", "-t", "core", "--label", "Lee, backend"])
    assert json.loads(hub.last("POST", "/v1/teams/core/invites").body) == {"label": "Lee, backend"}
    assert Invite.objects.get(label="Lee, backend").created_by.username == "bob"
    assert "not an e-mail address" in run(capsys, ["invite", "-t", "core", "--email", "not-an-address"], 1).err

    hub.as_user("carol")
    assert "team 'core' not found" in run(capsys, ["invite", "-t", "core", "--email", "lee@example.org"], 1).err
    assert len(mailoutbox) == 2


def test_invites_list_resend_and_revoke(hub, core, capsys, mailoutbox):
    from teams.models import Invite

    out_of(capsys, ["invite", "-t", "core", "--email", "sam@example.org"])
    out_of(capsys, ["invite", "-t", "core", "--label", "Lee, backend"])
    sam, lee = Invite.objects.get(email="sam@example.org"), Invite.objects.get(label="Lee, backend")
    lines = out_of(capsys, ["teams", "invites", "core"]).splitlines()
    assert lines[0].split() == ["ID", "FOR", "BY", "EXPIRES"]
    assert [line.split()[0] for line in lines[1:]] == [lee.pk, sam.pk]  # newest first
    assert "Lee, backend" in lines[1] and lines[2].split()[1] == "sam@example.org" and "alice" in lines[2]
    listed = json.loads(out_of(capsys, ["teams", "invites", "core", "--json"]))["invites"]
    assert [invite["id"] for invite in listed] == [lee.pk, sam.pk]

    err = run(capsys, ["teams", "invite-resend", "core", sam.pk]).err
    assert hub.last("POST", f"/v1/teams/core/invites/{sam.pk}/resend").body == b"{}"
    assert f"mailed a fresh link for invite {sam.pk} to sam@example.org" in err
    assert len(mailoutbox) == 2 and mailoutbox[0].body != mailoutbox[1].body
    err = run(capsys, ["teams", "invite-resend", "core", lee.pk], code=1).err
    assert "this invite has no e-mail address; make a new invite to send one" in err

    assert f"revoked invite {lee.pk} of team core" in run(capsys, ["teams", "invite-revoke", "core", lee.pk]).err
    assert hub.last("DELETE", "/v1/teams/core/invites/").path == f"/v1/teams/core/invites/{lee.pk}"
    assert [i["id"] for i in json.loads(out_of(capsys, ["teams", "invites", "core", "--json"]))["invites"]] == [sam.pk]
    assert "invite expired or already consumed" in run(capsys, ["teams", "invite-resend", "core", lee.pk], 1).err
    err = run(capsys, ["teams", "invite-revoke", "core", "01HV0000000000000000000000"], code=1).err
    assert "invite not found in team core" in err and "`ltm teams invites core`" in err


def test_no_pending_invites_says_how_to_make_one(hub, core, capsys):
    result = run(capsys, ["teams", "invites", "core"])
    assert result.out == "" and "no pending invites in team core; make one with `ltm invite -t core`" in result.err


def test_teams_log_for_members_and_not_outsiders(hub, core, tmp_path, capsys):
    from teams.models import Membership

    out_of(capsys, ["push", write_example(tmp_path), "-t", "core"])
    out_of(capsys, ["rm", PACKET_ID])
    out_of(capsys, ["invite", "-t", "core", "--label", "Kim"])

    lines = out_of(capsys, ["teams", "log", "core"]).splitlines()
    assert lines[0].split() == ["WHEN", "WHO", "WHAT", "ID"]
    assert "alice" in lines[1] and "created an invite for “Kim”" in lines[1]
    assert f"deleted packet {PACKET_ID}" in lines[2] and f"pushed packet {PACKET_ID}" in lines[3]

    page = json.loads(out_of(capsys, ["teams", "log", "core", "--json", "--limit", "2"]))
    assert [e["kind"] for e in page["events"]] == ["invite.created", "packet.deleted"]
    older = json.loads(out_of(capsys, ["teams", "log", "core", "--json", "--before", str(page["next_before"])]))
    assert [e["kind"] for e in older["events"]] == ["packet.pushed"] and older["next_before"] is None
    only = json.loads(out_of(capsys, ["teams", "log", "core", "--json", "--kind", "packet.deleted"]))
    assert [e["kind"] for e in only["events"]] == ["packet.deleted"]
    assert "unknown kind" in run(capsys, ["teams", "log", "core", "--kind", "nope"], code=1).err

    for username, role in (("adam", Membership.ADMIN), ("bob", Membership.MEMBER)):
        join(hub, core, username, role)
        assert "created an invite" in out_of(capsys, ["teams", "log", "core"])
    hub.as_user("carol")
    assert "team 'core' not found" in run(capsys, ["teams", "log", "core"], code=1).err
