"""`ltm push` and `ltm save` against the real hub: what goes on the wire, the client's own checks
(validation, the redaction pre-flight) that send nothing, and the hub's refusals said as a person
can act on them."""

import json

import pytest

from cli.testing.command_line import PACKET_ID, out_of, packet_with, pipe_stdin, run, write_example, write_packet
from ltm.protocol.packet import example_packet


def test_push_sends_the_file_with_the_bearer_and_prints_the_id(hub, tmp_path, capsys):
    path = write_packet(tmp_path, example_packet())
    assert out_of(capsys, ["push", path]) == PACKET_ID + "\n"
    sent = hub.last("POST", "/v1/packets")
    assert sent.path == "/v1/packets"
    assert sent.headers["Authorization"] == f"Bearer {hub.token()}"
    assert sent.headers["Content-Type"] == "application/json"
    assert sent.body == open(path, "rb").read()
    assert json.loads(out_of(capsys, ["pull", PACKET_ID])) == example_packet()


def test_save_reads_stdin_and_pushes_into_a_team(hub, monkeypatch, capsys):
    out_of(capsys, ["teams", "create", "core"])
    pipe_stdin(monkeypatch, json.dumps(example_packet()))
    out_of(capsys, ["save", "-", "-t", "core"])
    assert hub.last("POST", "/v1/packets").path == "/v1/packets?team=core"
    assert [p["id"] for p in json.loads(out_of(capsys, ["ls", "--json", "-t", "core"]))["packets"]] == [PACKET_ID]
    assert json.loads(out_of(capsys, ["ls", "--json"])) == {"packets": []}


def test_push_to_an_unknown_team_says_as_ls_does(hub, tmp_path, capsys):
    listed = run(capsys, ["ls", "-t", "nosuch"], code=1).err
    assert run(capsys, ["push", write_packet(tmp_path, example_packet()), "-t", "nosuch"], code=1).err == listed
    assert listed == f"ltm: team 'nosuch' not found on {hub.url}; list yours with `ltm teams ls`\n"


def test_redaction_blocks_the_push_and_names_each_finding(hub, tmp_path, capsys):
    packet = packet_with(goal="Deploy with AKIAIOSFODNN7EXAMPLE from /home/dev/deploy.sh")
    err = run(capsys, ["push", write_packet(tmp_path, packet)], code=1).err
    assert "  - goal: abs-path (/hom…)\n" in err
    assert "  - goal: aws-key (AKIA…)\n" in err
    assert "AKIAIOSFODNN7EXAMPLE" not in err and "/dev/deploy.sh" not in err  # what it refuses to send
    assert "--allow-unredacted" in err
    assert hub.sent == []


def test_allow_unredacted_pushes_anyway_and_the_hub_flags_it(hub, tmp_path, capsys):
    packet = packet_with(goal="Deploy with AKIAYSB2J2WQ91RGAZC7")  # not AWS's documented example key
    pushed = run(capsys, ["push", "--allow-unredacted", write_packet(tmp_path, packet)])
    assert pushed.out == PACKET_ID + "\n"
    assert "ltm: warning: the hub's secret scan found what looks like secrets" in pushed.err
    assert "  - goal: aws-access-key" in pushed.err
    assert b"AKIAYSB2J2WQ91RGAZC7" in hub.last("POST", "/v1/packets").body
    assert json.loads(out_of(capsys, ["pull", PACKET_ID]))["goal"] == packet["goal"]


def test_invalid_packet_lists_every_error_with_its_path_and_sends_nothing(hub, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"][0]["outcome"] = "maybe"
    packet["tags"] = ["Bad Tag"]
    err = run(capsys, ["push", write_packet(tmp_path, packet)], code=1).err
    assert "$.attempts[0].outcome" in err and "$.tags[0]" in err
    assert "ltm example" in err
    assert hub.sent == []


def test_lenient_hub_rejection_lists_the_errors_like_local_validation(hub, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"][0]["outcome"] = "maybe"
    packet["tags"] = ["Bad Tag", "Also Bad"]
    path = write_packet(tmp_path, packet)
    local = run(capsys, ["push", path], code=1).err.splitlines()[1:]
    lines = run(capsys, ["push", "--lenient", path], code=1).err.splitlines()
    assert hub.last("POST", "/v1/packets")  # it was sent, and the hub decided
    assert lines[0] == f"ltm: packet rejected by {hub.url}"
    assert lines[1:] == local  # the same errors, one a line, in the same form
    assert len(local) == 3 and all(line.startswith("  - $.") for line in local)


def test_lenient_from_config(hub, tmp_path, capsys):
    out_of(capsys, ["config", "set", "lenient", "true"])
    err = run(capsys, ["push", write_packet(tmp_path, packet_with(tags=["Bad Tag"]))], code=1).err
    assert err.startswith(f"ltm: packet rejected by {hub.url}")
    assert hub.last("POST", "/v1/packets")


def test_a_hub_rejection_of_more_than_three_errors_says_how_many_more(hub, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"][0]["outcome"] = "maybe"
    packet.update(tags=["Not A Tag", "Also Bad"], extra=1)
    del packet["goal"]  # five errors: the hub's message shows three
    lines = run(capsys, ["push", "--lenient", write_packet(tmp_path, packet)], code=1).err.splitlines()
    assert lines[0].startswith("ltm: packet rejected by ")
    assert len(lines) == 5 and all(line.startswith("  - $") for line in lines[1:4])
    assert lines[-1] == "  - ... and 2 more (push without --lenient to list every error)"


def test_a_hub_rejection_without_a_path_stays_one_error(hub, tmp_path, capsys):
    lines = run(capsys, ["push", "--lenient", write_example(tmp_path, goal="x" * 40000)], code=1).err.splitlines()
    assert len(lines) == 2 and "bytes; the maximum is 32768 bytes" in lines[1]


def test_a_numeric_ltm_version_is_explained_by_the_hub(hub, tmp_path, capsys):
    err = run(capsys, ["push", "--lenient", write_example(tmp_path, ltm_version=0.2)], code=1).err
    assert 'ltm_version must be a string such as "0.2", not a number' in err
    assert "supported: 0.1, 0.2" not in err


@pytest.mark.parametrize("body", ["[" * 100_000, "[" * 5000 + "]" * 5000], ids=["unclosed", "closed"])
def test_lenient_push_of_a_deeply_nested_file_is_refused_not_crashed(hub, tmp_path, capsys, body):
    path = tmp_path / "deep.json"
    path.write_text(body)
    assert "invalid JSON: nested more than 32 levels deep" in run(capsys, ["push", "--lenient", str(path)], 1).err
    assert hub.sent == []  # the redaction pre-flight cannot read it: nothing leaves


def test_a_taken_id_says_to_give_the_packet_a_new_id(hub, tmp_path, capsys):
    path = write_packet(tmp_path, example_packet())
    hub.as_user("bob")
    out_of(capsys, ["push", path])  # bob holds the protocol's fixed id
    hub.as_user("alice")
    err = run(capsys, ["push", path], code=1).err
    assert f"packet id {PACKET_ID} is already taken on {hub.url} by someone else" in err
    assert "give the packet a new id" in err and "`ltm example` prints a packet with a fresh id" in err

    example = tmp_path / "fresh.json"
    example.write_text(out_of(capsys, ["example"]))
    new_id = json.loads(example.read_text())["id"]
    assert new_id != PACKET_ID
    assert out_of(capsys, ["push", str(example)]) == new_id + "\n"


def test_pushing_your_packet_into_another_scope_shows_the_hubs_reason(hub, tmp_path, capsys):
    path = write_example(tmp_path)
    out_of(capsys, ["push", path])
    out_of(capsys, ["teams", "create", "scopes"])
    err = run(capsys, ["push", path, "-t", "scopes"], code=1).err
    assert "refused the push: packet" in err
    assert "is one of your personal packets (ltm push without -t)" in err
    assert "someone else" not in err


def test_missing_file_is_a_clear_failure(hub, tmp_path, capsys):
    assert "cannot read" in run(capsys, ["push", str(tmp_path / "nope.json")], code=1).err
