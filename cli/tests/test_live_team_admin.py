"""`ltm invite --email/--label` and `ltm teams log` against the real hub (pytest-django's live
server), for the owner, an admin, a member and an outsider."""

import json

import pytest

from .test_live_hub import PACKET_ID, main, out_of, person, signed_in, write_example  # noqa: F401 - fixtures


def as_user(monkeypatch, tmp_path, live_server, person, username, capsys):  # noqa: F811
    """Switch the client to a fresh config folder signed in as `username`; returns the user."""
    user, token = person(username)
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / username))
    assert main(["auth", live_server.url, token]) == 0
    capsys.readouterr()
    return user


@pytest.fixture
def core(signed_in, capsys):  # noqa: F811
    """Team core, made by alice (signed in) with `ltm teams create`: the Team."""
    from teams.models import Team

    out_of(capsys, ["teams", "create", "core"])
    return Team.objects.get(name="core")


def test_invite_by_email_and_by_label_with_the_rights_of_each_role(
    core,
    live_server,
    person,
    tmp_path,
    monkeypatch,
    capsys,
    mailoutbox,  # noqa: F811
):
    from teams.models import Invite, Membership

    team = core
    url = out_of(capsys, ["invite", "-t", "core", "--email", "sam@example.org"]).strip()
    assert "/v1/invites/" in url and url in mailoutbox[0].body  # the live server commits: the task ran
    assert Invite.objects.get(email="sam@example.org").created_by.username == "alice"

    adam = as_user(monkeypatch, tmp_path, live_server, person, "adam", capsys)
    Membership.objects.create(team=team, user=adam, role=Membership.ADMIN)
    out_of(capsys, ["invite", "-t", "core", "--email", "kim@example.org"])
    assert [m.to for m in mailoutbox] == [["sam@example.org"], ["kim@example.org"]]

    bob = as_user(monkeypatch, tmp_path, live_server, person, "bob", capsys)
    Membership.objects.create(team=team, user=bob)
    assert main(["invite", "-t", "core", "--email", "lee@example.org"]) == 1
    assert "only the team owner or an admin can do this" in capsys.readouterr().err
    assert "/v1/invites/" in out_of(capsys, ["invite", "-t", "core", "--label", "Lee"])
    assert Invite.objects.get(label="Lee").created_by == bob
    assert main(["invite", "-t", "core", "--email", "not-an-address"]) == 1
    assert "not an e-mail address" in capsys.readouterr().err

    as_user(monkeypatch, tmp_path, live_server, person, "carol", capsys)
    assert main(["invite", "-t", "core", "--email", "lee@example.org"]) == 1
    assert "team 'core' not found" in capsys.readouterr().err
    assert len(mailoutbox) == 2


def test_teams_log_for_members_and_not_outsiders(
    core,
    live_server,
    person,
    tmp_path,
    monkeypatch,
    capsys,  # noqa: F811
):
    from teams.models import Membership

    out_of(capsys, ["push", write_example(tmp_path), "-t", "core"])
    out_of(capsys, ["rm", PACKET_ID])
    out_of(capsys, ["invite", "-t", "core", "--label", "Kim"])

    text = out_of(capsys, ["teams", "log", "core"])
    lines = text.splitlines()
    assert lines[0].split() == ["WHEN", "WHO", "WHAT", "ID"]
    assert "alice" in lines[1] and "created an invite for “Kim”" in lines[1]
    assert f"deleted packet {PACKET_ID}" in lines[2] and f"pushed packet {PACKET_ID}" in lines[3]

    page = json.loads(out_of(capsys, ["teams", "log", "core", "--json", "--limit", "2"]))
    assert [e["kind"] for e in page["events"]] == ["invite.created", "packet.deleted"]
    older = json.loads(out_of(capsys, ["teams", "log", "core", "--json", "--before", str(page["next_before"])]))
    assert [e["kind"] for e in older["events"]] == ["packet.pushed"] and older["next_before"] is None
    only = json.loads(out_of(capsys, ["teams", "log", "core", "--json", "--kind", "packet.deleted"]))
    assert [e["kind"] for e in only["events"]] == ["packet.deleted"]
    assert main(["teams", "log", "core", "--kind", "nope"]) == 1
    assert "unknown kind" in capsys.readouterr().err

    team = core
    for username, role in (("adam", Membership.ADMIN), ("bob", Membership.MEMBER)):
        user = as_user(monkeypatch, tmp_path, live_server, person, username, capsys)
        Membership.objects.create(team=team, user=user, role=role)
        assert "created an invite" in out_of(capsys, ["teams", "log", "core"])

    as_user(monkeypatch, tmp_path, live_server, person, "carol", capsys)
    assert main(["teams", "log", "core"]) == 1
    assert "team 'core' not found" in capsys.readouterr().err


@pytest.fixture
def switch(live_server, person, tmp_path, monkeypatch, capsys):  # noqa: F811
    """switch(username): the client, from then on, signed in as that user in a folder of their own
    (made and signed in the first time); the user."""
    users = {}

    def to(username):
        monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / username))
        if username not in users and username != "alice":  # alice: `signed_in`
            users[username] = as_user(monkeypatch, tmp_path, live_server, person, username, capsys)
        return users.get(username)

    return to


def test_role_transfer_and_invites_from_the_command_line(core, switch, capsys, mailoutbox):
    from teams.models import Invite, Membership

    bob = switch("bob")
    Membership.objects.create(team=core, user=bob)
    assert main(["teams", "role", "core", "bob", "admin"]) == 1  # a member may not
    assert "only the team owner can do this" in capsys.readouterr().err

    switch("alice")
    assert "bob is now an admin of team core" in run_err(capsys, ["teams", "role", "core", "bob", "admin"])
    assert Membership.objects.get(team=core, user=bob).role == Membership.ADMIN
    members = json.loads(out_of(capsys, ["teams", "members", "core", "--json"]))["members"]
    assert {m["display"]: m["role"] for m in members} == {"alice": "owner", "bob": "admin"}
    assert main(["teams", "role", "core", "alice", "member"]) == 1
    assert "the owner's role cannot change; transfer ownership instead" in capsys.readouterr().err

    # invites: list, resend (a fresh link by mail), revoke
    out_of(capsys, ["invite", "-t", "core", "--email", "sam@example.org"])
    out_of(capsys, ["invite", "-t", "core", "--label", "Lee"])
    sam, lee = Invite.objects.get(email="sam@example.org"), Invite.objects.get(label="Lee")
    lines = out_of(capsys, ["teams", "invites", "core"]).splitlines()
    assert [line.split()[0] for line in lines] == ["ID", lee.pk, sam.pk]
    assert "sam@example.org" in lines[2] and "alice" in lines[2]
    assert f"mailed a fresh link for invite {sam.pk} to sam@example.org" in run_err(
        capsys, ["teams", "invite-resend", "core", sam.pk]
    )
    assert len(mailoutbox) == 2 and mailoutbox[0].body != mailoutbox[1].body
    assert f"revoked invite {lee.pk} of team core" in run_err(capsys, ["teams", "invite-revoke", "core", lee.pk])
    listed = json.loads(out_of(capsys, ["teams", "invites", "core", "--json"]))["invites"]
    assert [invite["id"] for invite in listed] == [sam.pk]
    assert main(["teams", "invite-resend", "core", lee.pk]) == 1
    assert "invite expired or already consumed" in capsys.readouterr().err

    # ownership: offered to bob, who accepts; alice stays on as an admin
    err = run_err(capsys, ["teams", "transfer", "core", "bob"])
    assert "offered the ownership of team core to bob" in err and "`ltm teams transfer-accept core`" in err
    switch("carol")
    assert main(["teams", "transfer-accept", "core"]) == 1
    assert "team 'core' not found" in capsys.readouterr().err
    switch("bob")
    assert "you now own team core" in run_err(capsys, ["teams", "transfer-accept", "core"])
    core.refresh_from_db()
    assert core.owner == bob
    assert Membership.objects.get(team=core, user__username="alice").role == Membership.ADMIN
    assert main(["teams", "transfer-decline", "core"]) == 1
    assert "no ownership transfer is pending in team core" in capsys.readouterr().err


def run_err(capsys, argv):
    """What a successful command noted on stderr."""
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().err
