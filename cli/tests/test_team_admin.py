"""`ltm teams role|remove|transfer|transfer-accept|transfer-decline|transfer-cancel` against the
real hub: the calls they make, what they print, and the hub's refusals reaching the person."""

import json

import pytest

from cli.testing.command_line import out_of, run


@pytest.fixture
def core(hub, capsys):
    """Team core, made by alice (signed in) with `ltm teams create`, with bob and carol as members:
    {username: user}."""
    from teams.models import Membership, Team

    out_of(capsys, ["teams", "create", "core"])
    team = Team.objects.get(name="core")
    people = {name: hub.person(name)[0] for name in ("alice", "bob", "carol")}
    for name in ("bob", "carol"):
        Membership.objects.create(team=team, user=people[name], role=Membership.MEMBER)
    hub.sent.clear()
    return people


def roles(capsys):
    return {
        m["display"]: m["role"] for m in json.loads(out_of(capsys, ["teams", "members", "core", "--json"]))["members"]
    }


def test_role_takes_a_name_an_email_or_an_id_and_posts_the_users_id(hub, core, capsys):
    bob = core["bob"]
    assert run(capsys, ["teams", "role", "core", "BOB", "admin"]) == ("", "ltm: bob is now an admin of team core\n")
    sent = hub.last("POST", "/v1/teams/core/members/")
    assert sent.path == f"/v1/teams/core/members/{bob.pk}/role" and json.loads(sent.body) == {"role": "admin"}
    assert roles(capsys) == {"alice": "owner", "bob": "admin", "carol": "member"}
    assert "bob is now a member of team core" in run(capsys, ["teams", "role", "core", bob.pk, "member"]).err
    assert roles(capsys)["bob"] == "member"
    assert "carol is now an admin" in run(capsys, ["teams", "role", "core", "Carol@Example.com", "admin"]).err
    err = run(capsys, ["teams", "role", "core", "alice", "member"], code=1).err
    assert "the owner's role cannot change; transfer ownership instead" in err


def test_role_refuses_an_unknown_role_before_asking_the_hub(hub, core, capsys):
    assert "invalid choice: 'owner'" in run(capsys, ["teams", "role", "core", "bob", "owner"], code=2).err
    assert hub.sent == []


def test_an_unknown_or_ambiguous_member_is_named_without_a_change(hub, core, capsys):
    err = run(capsys, ["teams", "role", "core", "dave", "admin"], code=1).err
    assert "no member 'dave' in team core" in err and "`ltm teams members core`" in err
    hub.as_user("carol")
    out_of(capsys, ["account", "set-name", "Bob"])  # two members shown as "bob"
    hub.as_user("alice")
    hub.sent.clear()
    err = run(capsys, ["teams", "transfer", "core", "Bob"], code=1).err
    assert "ltm: 'Bob' names 2 members of team core (" in err and "give the user id" in err
    listed = err.split(" (", 1)[1].split(")", 1)[0].split(", ")
    assert sorted(listed) == sorted([core["bob"].pk, core["carol"].pk])
    assert [r.method for r in hub.sent] == ["GET"]  # the members, and nothing else


def test_the_hubs_refusal_reaches_the_person(hub, core, capsys):
    out_of(capsys, ["invite", "-t", "core", "--label", "Lee"])
    (invite,) = json.loads(out_of(capsys, ["teams", "invites", "core", "--json"]))["invites"]
    hub.as_user("bob")
    assert "ltm: only the team owner can do this\n" in run(capsys, ["teams", "role", "core", "carol", "admin"], 1).err
    err = run(capsys, ["teams", "invite-revoke", "core", invite["id"]], code=1).err
    assert "only the team owner or an admin can do this" in err
    err = run(capsys, ["teams", "role", "nosuch", "carol", "admin"], code=1).err
    assert f"team 'nosuch' not found on {hub.url}; list yours with `ltm teams ls`" in err


def test_remove_a_member(hub, core, capsys):
    assert "removed carol from team core" in run(capsys, ["teams", "remove", "core", "carol"]).err
    assert hub.last("DELETE", "/v1/teams/core/members/").path == f"/v1/teams/core/members/{core['carol'].pk}"
    assert roles(capsys) == {"alice": "owner", "bob": "member"}


def test_transfer_offer_accept_and_decline(hub, core, capsys):
    err = run(capsys, ["teams", "transfer", "core", "bob"]).err
    assert json.loads(hub.last("POST", "/v1/teams/core/transfer").body) == {"user_id": core["bob"].pk}
    assert "offered the ownership of team core to bob" in err
    assert "`ltm teams transfer-accept core`" in err and "`ltm teams transfer-cancel core`" in err

    hub.as_user("carol")
    assert "offered to someone else" in run(capsys, ["teams", "transfer-accept", "core"], code=1).err
    hub.as_user("dave")
    assert "team 'core' not found" in run(capsys, ["teams", "transfer-accept", "core"], code=1).err
    hub.as_user("bob")
    assert "you now own team core" in run(capsys, ["teams", "transfer-accept", "core"]).err
    assert hub.last("POST", "/v1/teams/core/transfer/accept").body == b"{}"
    assert roles(capsys) == {"alice": "admin", "bob": "owner", "carol": "member"}  # alice stays, an admin

    run(capsys, ["teams", "transfer", "core", "carol"])
    hub.as_user("carol")
    assert "declined the ownership of team core" in run(capsys, ["teams", "transfer-decline", "core"]).err
    assert hub.last("DELETE", "/v1/teams/core/transfer")
    assert roles(capsys)["bob"] == "owner"
    err = run(capsys, ["teams", "transfer-decline", "core"], code=1).err
    assert "ltm: no ownership transfer is pending in team core" in err  # not "team not found"


def test_transfer_cancel_withdraws_the_offer(hub, core, capsys):
    run(capsys, ["teams", "transfer", "core", "carol"])
    assert "withdrew the ownership offer of team core" in run(capsys, ["teams", "transfer-cancel", "core"]).err
    hub.as_user("carol")
    assert "no ownership transfer is pending" in run(capsys, ["teams", "transfer-accept", "core"], code=1).err
