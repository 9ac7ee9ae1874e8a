"""thread, resume --thread, export, import and public links against the real hub (live_server)."""

import json

from ltm.main import main
from ltm.protocol.packet import canonical_json, example_packet
from ltm.protocol.resume import render_resume

from .test_live_hub import out_of, person, signed_in  # noqa: F401 - fixtures


def chain_packets(count=3):
    packets = []
    for number in range(1, count + 1):
        packet = example_packet()
        packet.update(
            id=f"01LIVETHREAD{number:014d}", created_at=f"2026-04-0{number}T10:00:00Z", goal=f"live goal {number}"
        )
        if packets:
            packet["parent_id"] = packets[-1]["id"]
            packet["decisions"] = [{"what": f"Decision {number}", "why": "because", "locked": True}]
            packet["attempts"] = []
        packets.append(packet)
    return packets


def write_jsonl(tmp_path, packets, name="in.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(packet) + "\n" for packet in packets))
    return str(path)


def test_import_thread_resume_and_export_round_trip(signed_in, tmp_path, capsys):  # noqa: F811
    packets = chain_packets()
    source = write_jsonl(tmp_path, packets)
    assert out_of(capsys, ["import", source]).splitlines() == [f"pushed\t{p['id']}" for p in packets]
    assert out_of(capsys, ["import", source]).splitlines() == [f"already there\t{p['id']}" for p in packets]

    thread = json.loads(out_of(capsys, ["thread", "--json", packets[1]["id"]]))["packets"]
    assert [item["id"] for item in thread] == [p["id"] for p in packets]
    assert thread[0] == {
        "id": packets[0]["id"],
        "parent_id": None,
        "created_at": "2026-04-01T10:00:00Z",
        "goal": "live goal 1",
        "team": None,
    }

    block = out_of(capsys, ["resume", packets[0]["id"], "--thread"])
    assert block == render_resume(packets[2], packets[:2])
    assert "Decision 2" in block and "Decision 3" in block

    exported = tmp_path / "out.jsonl"
    out_of(capsys, ["export", "-o", str(exported)])
    assert [json.loads(line) for line in exported.read_text().splitlines()] == packets
    markdown = out_of(capsys, ["export", "--format", "markdown"])
    assert [line for line in markdown.splitlines() if line.startswith("## ")] == [f"## {p['goal']}" for p in packets]


def test_import_reports_refusals_and_exits_1(signed_in, tmp_path, capsys):  # noqa: F811
    good, secret = chain_packets(2)
    secret["next_step"] = "token ghp_" + "a" * 36
    assert main(["import", write_jsonl(tmp_path, [good, secret])]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"pushed\t{good['id']}\n"
    assert (
        f"line 2 ({secret['id']}): refused:" in captured.err
        and "next_step: gh-token (ghp_…)" in captured.err
        and "a" * 8 not in captured.err
    )
    assert "1 pushed, 0 already there, 1 refused" in captured.err


def test_a_public_link_works_with_no_account(signed_in, tmp_path, monkeypatch, capsys):  # noqa: F811
    packet = chain_packets(1)[0]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(packet))
    out_of(capsys, ["push", str(path)])
    url = out_of(capsys, ["publish", packet["id"]]).strip()

    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "stranger"))  # no host, no token
    assert out_of(capsys, ["pull", url]) == canonical_json(packet)
    assert out_of(capsys, ["resume", url]) == render_resume(packet)
    assert out_of(capsys, ["show", url]).startswith(packet["id"])

    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "alice"))
    out_of(capsys, ["unpublish", packet["id"]])
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "stranger"))
    assert main(["pull", url]) == 1
    assert "not a published packet" in capsys.readouterr().err


def test_import_into_a_team_refuses_a_personal_packet_with_the_hubs_message(signed_in, tmp_path, capsys):  # noqa: F811
    personal, fresh = chain_packets(2)
    path = tmp_path / "one.json"
    path.write_text(json.dumps(personal))
    out_of(capsys, ["push", str(path)])
    out_of(capsys, ["teams", "create", "core"])
    source = write_jsonl(tmp_path, [personal, fresh])

    assert main(["import", source, "-t", "core"]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"pushed\t{fresh['id']}\n"  # not "already there" for the personal one
    assert f"line 1 ({personal['id']}): refused:" in captured.err
    assert f"packet {personal['id']} is one of your personal packets (ltm push without -t)" in captured.err
    assert "1 pushed, 0 already there, 1 refused" in captured.err
    assert json.loads(out_of(capsys, ["ls", "-t", "core", "--json"]))["packets"][0]["id"] == fresh["id"]

    assert main(["import", source, "-t", "core"]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"already there\t{fresh['id']}\n"  # in the team already: left alone
    assert "0 pushed, 1 already there, 1 refused" in captured.err
