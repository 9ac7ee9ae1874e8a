"""`ltm invite --email/--label` and `ltm teams log` against the real hub (pytest-django's live
server), for the owner, an admin, a member and an outsider."""

import json

from .test_live_hub import PACKET_ID, main, out_of, person, signed_in, write_example  # noqa: F401 - fixtures


def as_user(monkeypatch, tmp_path, live_server, person, username, capsys):  # noqa: F811
    """Switch the client to a fresh config folder signed in as `username`; returns the user."""
    user, token = person(username)
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / username))
    assert main(["auth", live_server.url, token]) == 0
    capsys.readouterr()
    return user


def test_invite_by_email_and_by_label_with_the_rights_of_each_role(
    signed_in,
    live_server,
    person,
    tmp_path,
    monkeypatch,
    capsys,
    mailoutbox,  # noqa: F811
):
    from teams.models import Invite, Membership, Team

    out_of(capsys, ["teams", "create", "core"])
    team = Team.objects.get(name="core")
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
    signed_in,
    live_server,
    person,
    tmp_path,
    monkeypatch,
    capsys,  # noqa: F811
):
    from teams.models import Membership, Team

    out_of(capsys, ["teams", "create", "core"])
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

    team = Team.objects.get(name="core")
    for username, role in (("adam", Membership.ADMIN), ("bob", Membership.MEMBER)):
        user = as_user(monkeypatch, tmp_path, live_server, person, username, capsys)
        Membership.objects.create(team=team, user=user, role=role)
        assert "created an invite" in out_of(capsys, ["teams", "log", "core"])

    as_user(monkeypatch, tmp_path, live_server, person, "carol", capsys)
    assert main(["teams", "log", "core"]) == 1
    assert "team 'core' not found" in capsys.readouterr().err
