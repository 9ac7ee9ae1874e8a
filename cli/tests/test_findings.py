"""The hub's secret scan as the client shows it, against the real hub (pytest-django's live
server): `ltm push` warns of a flagged packet and reports a refused one, `ltm findings` lists the
review queue and a packet's findings and clears them, and `ltm mcp`'s `save` tool answers them."""

import json

import pytest

from cli.testing.command_line import PACKET_ID, out_of, write_example
from ltm import mcp_server
from ltm.main import main
from ltm.protocol import tools as specs
from ltm.protocol.tool_calls import ToolError

# A GitLab token: the client's pre-flight does not know the kind, the hub's scan does.
GITLAB = "glpat-Xq7vR2mK9pL4sT8wZ3nB"
LEAKY_STEP = f"clone with {GITLAB} and run the suite"
# An AWS key: the client's pre-flight finds it too, so pushing it takes --allow-unredacted.
AWS = "AKIAYSB2J2WQ91RGAZC7"


@pytest.fixture
def flagged(hub, tmp_path, capsys):
    """Alice's packet with a token in its next step, pushed and flagged: what the push printed."""
    assert main(["push", write_example(tmp_path, next_step=LEAKY_STEP)]) == 0
    return capsys.readouterr()


def test_push_warns_which_fields_the_hub_flagged_and_how_to_fix_it(flagged, hub):
    assert flagged.out == PACKET_ID + "\n"
    lines = flagged.err.splitlines()
    assert lines[0].startswith("ltm: pushed to your packets on ")
    assert lines[1] == f"ltm: warning: the hub's secret scan found what looks like secrets in packet {PACKET_ID}:"
    assert lines[2] == "  - next_step: gitlab-token"
    assert lines[3] == (
        f"ltm: packet {PACKET_ID} is quarantined: it cannot be published or shared. Push a version without "
        f'them (the same id replaces it), or, when they are not secrets, clear them: `ltm findings clear {PACKET_ID} --reason "..."` '
        f"or on its page, {hub.url}/packets/{PACKET_ID}"
    )
    assert GITLAB not in flagged.err


def test_a_quarantined_packet_is_not_published_until_its_findings_are_cleared(flagged, hub, capsys):
    assert main(["publish", PACKET_ID]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ltm: packet {PACKET_ID} cannot be published: the hub's secret scan found")
    assert err.endswith("\n  - next_step: gitlab-token\n")  # as every finding prints
    hub.person("bob")
    assert main(["share", PACKET_ID, "bob"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ltm: packet {PACKET_ID} cannot be shared: the hub's secret scan found")
    assert err.endswith("\n  - next_step: gitlab-token\n")

    assert main(["findings", "clear", PACKET_ID]) == 2
    assert "--reason is required" in capsys.readouterr().err
    assert main(["findings", "clear", PACKET_ID, "--reason", "a revoked test token"]) == 0
    assert capsys.readouterr().err == (
        f"ltm: cleared 1 finding of {PACKET_ID}: it may be published and shared again (the hub keeps who and why; a team's log too)\n"
    )
    out_of(capsys, ["publish", PACKET_ID])

    header, row = out_of(capsys, ["findings", PACKET_ID]).splitlines()
    assert header.split() == ["FIELD", "KIND", "FOUND", "CLEARED"]
    assert row.startswith("next_step  gitlab-token  ") and row.endswith(" by alice")
    (finding,) = json.loads(out_of(capsys, ["findings", PACKET_ID, "--json"]))["findings"]
    assert finding["cleared_by"]["display"] == "alice" and finding["reason"] == "a revoked test token"
    assert out_of(capsys, ["findings", "--json"]) == '{\n  "findings": []\n}\n'


def test_findings_lists_the_review_queue_and_a_packets_findings(flagged, capsys):
    assert main(["findings"]) == 0
    captured = capsys.readouterr()
    header, row = captured.out.splitlines()
    assert header.split() == ["PACKET", "TEAM", "FIELD", "KIND", "FOUND", "GOAL"]
    assert row.startswith(f"{PACKET_ID}  personal  next_step  gitlab-token  ")
    assert "1 packet quarantined (not published, not shared)" in captured.err
    (queued,) = json.loads(out_of(capsys, ["findings", "--json"]))["findings"]
    assert (queued["packet_id"], queued["path"], queued["kind"], queued["team"]) == (
        PACKET_ID,
        "next_step",
        "gitlab-token",
        None,
    )

    assert main(["findings", PACKET_ID]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].endswith("  open")
    assert f"packet {PACKET_ID} is quarantined" in captured.err

    assert main(["findings", "01NOSUCHPACKET0000000000000"]) == 1
    assert "packet 01NOSUCHPACKET0000000000000 not found" in capsys.readouterr().err


def test_the_review_queue_of_a_team_is_for_its_owner_and_admins(hub, tmp_path, capsys):
    out_of(capsys, ["teams", "create", "core"])
    from teams.models import Membership, Team

    bob = hub.as_user("bob")
    Membership.objects.create(team=Team.objects.get(name="core"), user=bob, role=Membership.MEMBER)
    assert main(["push", "-t", "core", write_example(tmp_path, next_step=LEAKY_STEP)]) == 0
    capsys.readouterr()
    assert [row.split()[:2] for row in out_of(capsys, ["findings", "-t", "core"]).splitlines()[1:]] == [
        [PACKET_ID, "core"]
    ]
    assert main(["findings", "clear", PACKET_ID, "--reason", "fake token"]) == 0  # the creator may
    capsys.readouterr()

    hub.as_user("alice")
    assert main(["findings", "-t", "nosuch"]) == 1
    assert "team 'nosuch' not found" in capsys.readouterr().err


def test_a_refusal_names_the_findings_and_says_allow_unredacted_does_not_override_the_hub(
    hub, settings, tmp_path, capsys
):
    settings.LTM_SECRET_SCAN = "refuse"
    packet = write_example(tmp_path, next_step=f"export {AWS} and deploy")
    assert main(["push", packet]) == 1  # the client's own check first
    assert "--allow-unredacted" in capsys.readouterr().err
    assert main(["push", "--allow-unredacted", packet]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[0].startswith("ltm: http://") and "refused the packet: its secret scan found" in lines[0]
    assert "--allow-unredacted only skips this client's own check, never the hub's" in lines[0]
    assert lines[1:] == ["  - next_step: aws-access-key"]
    assert AWS not in captured.err
    assert main(["ls"]) == 0 and "no packets yet" in capsys.readouterr().err


def test_the_mcp_save_tool_answers_the_findings(hub, settings, tmp_path):
    packet = json.loads(open(write_example(tmp_path, next_step=LEAKY_STEP)).read())
    found = [{"path": "next_step", "kind": "gitlab-token"}]
    answer = mcp_server.call("save", {"packet": packet})
    assert answer.endswith("\n" + specs.flagged_message(PACKET_ID, found))

    settings.LTM_SECRET_SCAN = "refuse"
    with pytest.raises(ToolError) as refused:
        mcp_server.call("save", {"packet": {**packet, "id": "01FINDINGSREFUSED000000000"}})
    assert str(refused.value) == specs.secrets_refused_message(found)


@pytest.mark.parametrize(
    "argv, said",
    [
        (["findings", "clear"], "which packet? `ltm findings clear ID --reason TEXT`"),
        (["findings", "clear", PACKET_ID, "--reason", " "], "--reason is required"),
        (["findings", PACKET_ID, "--reason", "fine"], "--reason goes with `ltm findings clear ID --reason TEXT`"),
        (["findings", PACKET_ID, "01OTHERPACKET000000000000"], "one packet id at a time"),
        (["findings", PACKET_ID, "-t", "core"], "a packet id needs no team"),
    ],
)
def test_findings_usage_errors_are_caught_before_any_call(config_dir, argv, said, capsys):
    assert main(argv) == 2
    assert said in capsys.readouterr().err


def test_import_says_which_packets_the_hub_flagged(hub, tmp_path, capsys):
    with open(write_example(tmp_path, next_step=LEAKY_STEP)) as packet:
        (tmp_path / "packets.jsonl").write_text(json.dumps(json.load(packet)) + "\n")
    assert main(["import", str(tmp_path / "packets.jsonl")]) == 0
    printed = capsys.readouterr()
    assert printed.out == f"pushed\t{PACKET_ID}\n"
    assert (
        f"ltm: line 1 ({PACKET_ID}): the hub's secret scan flagged next_step: gitlab-token; see `ltm findings {PACKET_ID}`"
        in printed.err.splitlines()
    )
    assert GITLAB not in printed.err
