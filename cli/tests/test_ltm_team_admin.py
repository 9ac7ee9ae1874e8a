"""`ltm teams role|remove|transfer…|invites|invite-revoke|invite-resend` against the fake hub: the
calls they make, what they print, and the hub's refusals reaching the person."""

import json

import pytest

from ltm.main import main


def run(capsys, argv, code=0):
    assert main(argv) == code, capsys.readouterr().err
    return capsys.readouterr()


@pytest.fixture
def team(hub):
    """Team core owned by alice, with bob and carol as members; tokens for both."""
    hub.state.tokens.update({"tok-bob": "bob", "tok-carol": "carol"})
    hub.state.teams["core"] = {
        "id": "T1",
        "owner": "alice",
        "members": {"alice": "owner", "bob": "member", "carol": "member"},
    }
    return hub.state.teams["core"]


def as_user(config_dir, token):
    (config_dir / "credentials").write_text(token + "\n")


def test_role_takes_a_name_an_email_or_an_id_and_posts_the_users_id(hub, team, capsys):
    result = run(capsys, ["teams", "role", "core", "Bob", "admin"])
    assert hub.last("POST", "/v1/teams/core/members/").path == "/v1/teams/core/members/bob/role"
    assert json.loads(hub.last("POST", "/v1/teams/core/members/").body) == {"role": "admin"}
    assert result.out == "" and "ltm: Bob is now an admin of team core\n" in result.err
    assert team["members"]["bob"] == "admin"
    assert "Bob is now a member of team core" in run(capsys, ["teams", "role", "core", "bob", "member"]).err
    assert team["members"]["bob"] == "member"


def test_role_refuses_an_unknown_role_before_asking_the_hub(hub, team, capsys):
    assert main(["teams", "role", "core", "bob", "owner"]) == 2
    assert "invalid choice: 'owner'" in capsys.readouterr().err
    assert not [r for r in hub.state.requests if r.path.endswith("/role")]


def test_an_unknown_or_ambiguous_member_is_named_without_a_call(hub, team, capsys):
    err = run(capsys, ["teams", "role", "core", "dave", "admin"], code=1).err
    assert "no member 'dave' in team core" in err and "`ltm teams members core`" in err
    team["members"]["BOB"] = "member"  # two members shown as "Bob"
    err = run(capsys, ["teams", "transfer", "core", "Bob"], code=1).err
    assert "'Bob' names 2 members of team core (bob, BOB)" in err and "user id" in err
    assert not [r for r in hub.state.requests if r.method == "POST"]


def test_the_hubs_refusal_reaches_the_person(hub, team, config_dir, capsys):
    as_user(config_dir, "tok-bob")
    err = run(capsys, ["teams", "role", "core", "carol", "admin"], code=1).err
    assert "ltm: only the team owner can do this\n" in err
    err = run(capsys, ["teams", "invite-revoke", "core", "INV1"], code=1).err
    assert "only the team owner or an admin can do this" in err
    err = run(capsys, ["teams", "role", "nosuch", "carol", "admin"], code=1).err
    assert f"team 'nosuch' not found on {hub.url}; list yours with `ltm teams ls`" in err


def test_remove_a_member(hub, team, capsys):
    assert "removed Carol from team core" in run(capsys, ["teams", "remove", "core", "carol"]).err
    assert hub.last("DELETE", "/v1/teams/core/members/").path == "/v1/teams/core/members/carol"
    assert "carol" not in team["members"]


def test_transfer_offer_accept_and_decline(hub, team, config_dir, capsys):
    err = run(capsys, ["teams", "transfer", "core", "bob"]).err
    assert json.loads(hub.last("POST", "/v1/teams/core/transfer").body) == {"user_id": "bob"}
    assert "offered the ownership of team core to Bob" in err
    assert "`ltm teams transfer-accept core`" in err and "`ltm teams transfer-cancel core`" in err

    as_user(config_dir, "tok-carol")
    assert "offered to someone else" in run(capsys, ["teams", "transfer-accept", "core"], code=1).err
    as_user(config_dir, "tok-bob")
    err = run(capsys, ["teams", "transfer-accept", "core"]).err
    assert hub.last("POST", "/v1/teams/core/transfer/accept").body == b"{}"
    assert "you now own team core" in err
    assert team["owner"] == "bob" and team["members"]["alice"] == "admin"

    run(capsys, ["teams", "transfer", "core", "carol"])
    as_user(config_dir, "tok-carol")
    assert "declined the ownership of team core" in run(capsys, ["teams", "transfer-decline", "core"]).err
    assert hub.last("DELETE", "/v1/teams/core/transfer")
    assert team["owner"] == "bob" and team.get("transfer_to") is None
    err = run(capsys, ["teams", "transfer-decline", "core"], code=1).err
    assert "ltm: no ownership transfer is pending in team core" in err  # not "team not found"


def test_transfer_cancel_withdraws_the_offer(hub, team, capsys):
    run(capsys, ["teams", "transfer", "core", "carol"])
    assert "withdrew the ownership offer of team core" in run(capsys, ["teams", "transfer-cancel", "core"]).err
    assert team.get("transfer_to") is None


def test_invites_list_revoke_and_resend(hub, team, capsys):
    run(capsys, ["invite", "-t", "core", "--email", "sam@example.org"])
    run(capsys, ["invite", "-t", "core", "--label", "Lee, backend"])
    lines = run(capsys, ["teams", "invites", "core"]).out.splitlines()
    assert lines[0].split() == ["ID", "FOR", "BY", "EXPIRES"]
    assert lines[1].split()[:2] == ["INV1", "sam@example.org"] and "Alice" in lines[1]
    assert lines[2].startswith("INV2") and "Lee, backend" in lines[2]
    listed = json.loads(run(capsys, ["teams", "invites", "core", "--json"]).out)
    assert [invite["id"] for invite in listed["invites"]] == ["INV1", "INV2"]

    err = run(capsys, ["teams", "invite-resend", "core", "INV1"]).err
    assert hub.last("POST", "/v1/teams/core/invites/INV1/resend").body == b"{}"
    assert "mailed a fresh link for invite INV1 to sam@example.org" in err
    err = run(capsys, ["teams", "invite-resend", "core", "INV2"], code=1).err
    assert "this invite has no e-mail address; make a new invite to send one" in err

    assert "revoked invite INV2 of team core" in run(capsys, ["teams", "invite-revoke", "core", "INV2"]).err
    assert hub.last("DELETE", "/v1/teams/core/invites/").path == "/v1/teams/core/invites/INV2"
    assert [i["id"] for i in json.loads(run(capsys, ["teams", "invites", "core", "--json"]).out)["invites"]] == ["INV1"]
    err = run(capsys, ["teams", "invite-revoke", "core", "INV9"], code=1).err
    assert "invite not found in team core" in err and "`ltm teams invites core`" in err


def test_no_pending_invites_says_how_to_make_one(hub, team, capsys):
    result = run(capsys, ["teams", "invites", "core"])
    assert result.out == "" and "no pending invites in team core; make one with `ltm invite -t core`" in result.err
