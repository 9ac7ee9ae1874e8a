"""`ltm teams` (create, ls, members, leave, rm) against the real hub. Inviting and joining are
test_join.py's; roles, transfers and pending invites test_team_admin.py's."""

import json

from cli.testing.command_line import out_of, run


def test_teams_lifecycle(hub, capsys):
    assert out_of(capsys, ["teams", "create", "core"]) == "core\n"
    assert hub.last("POST", "/v1/teams").body == b'{"name": "core"}'
    assert [t["name"] for t in json.loads(out_of(capsys, ["teams", "ls", "--json"]))["teams"]] == ["core"]
    assert "core" in out_of(capsys, ["teams"])
    members = out_of(capsys, ["teams", "members", "core"]).splitlines()
    assert "alice" in members[1] and "owner" in members[1]
    run(capsys, ["teams", "rm", "core"])
    assert "team 'core' not found" in run(capsys, ["teams", "members", "core"], code=1).err


def test_an_owner_leaving_is_sent_to_the_team_page(hub, capsys):
    from django.urls import reverse

    out_of(capsys, ["teams", "create", "core"])
    err = run(capsys, ["teams", "leave", "core"], code=1).err
    page = hub.url + reverse("team-detail", args=["core"])  # the hub's own team page
    assert (
        "you own team core, and an owner cannot leave; hand it on first with `ltm teams transfer core "
        f"<member>` (or on the team's page {page}) and leave once they accept, or delete the "
        "team with `ltm teams rm core`" in err
    )


def test_a_member_leaves_with_a_note_on_stderr(hub, capsys):
    hub.as_user("bob")
    out_of(capsys, ["teams", "create", "core"])
    url = out_of(capsys, ["invite", "-t", "core"]).strip()
    hub.as_user("alice")
    out_of(capsys, ["join", url])
    assert run(capsys, ["teams", "leave", "core"]) == ("", "ltm: left team core\n")
    assert json.loads(out_of(capsys, ["teams", "ls", "--json"])) == {"teams": []}
    assert "team 'core' not found" in run(capsys, ["ls", "-t", "core"], code=1).err
