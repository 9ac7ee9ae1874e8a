"""The resume block: section order of the contract, empty sections left out, v0.1 and v0.2."""

from ltm.protocol.packet import example_packet
from ltm.protocol.resume import render_resume, render_section

ORDER = [
    "## Goal",
    "## Success criteria",
    "## Locked decisions",
    "## Prior attempts that failed or were partial",
    "## Your first action",
    "## Constraints",
    "## Reusable methods",
    "## Attempts that worked",
    "## Tentative decisions",
    "## Open questions",
    "## Project",
    "**Reminder, your first action:**",
    "- Packet:",
    "- Spec version:",
    "- Continues:",
    "- Created:",
    "- Author:",
    "- Tags:",
]


def full_packet():
    packet = example_packet()
    packet["parent_id"] = "01JS5LTMEXAMPLEPACKET00000Z"
    packet["decisions"][1]["locked"] = False
    packet["attempts"].append({"tried": "Wrote it as a list of features", "outcome": "partial"})
    packet["attempts"].append({"tried": "Read it aloud", "outcome": "succeeded", "learned": "flows"})
    return packet


def minimal_packet(id, goal, next_step, *, created_at, version="0.2", **fields):
    """A packet with only the fields every packet has, and `fields`."""
    return {"ltm_version": version, "id": id, "created_at": created_at, "goal": goal, "next_step": next_step, **fields}


def test_sections_follow_the_contract_order():
    text = render_resume(full_packet())
    positions = [text.index(marker) for marker in ORDER]
    assert positions == sorted(positions)
    assert text.startswith("# Resume from ltm packet\n\nThis block resumes earlier work.")
    assert "authoritative" in text.split("## Goal")[0]


def test_decisions_and_attempts_land_in_the_right_sections():
    text = render_resume(full_packet())
    locked = text.split("## Locked decisions")[1].split("## ")[0]
    tentative = text.split("## Tentative decisions")[1].split("## ")[0]
    failed = text.split("## Prior attempts that failed or were partial")[1].split("## ")[0]
    worked = text.split("## Attempts that worked")[1].split("## ")[0]
    assert "Output stays in email.md" in locked and "plain Markdown" not in locked
    assert "plain Markdown" in tentative
    assert "  - Consequences: Suggestions to add a README" in locked
    assert "[failed] Drafted a version" in failed and "[partial] Wrote it as a list" in failed
    assert "  - Learned: Leading with a category label" in failed
    assert "  - Confidence: high" in failed
    assert "[succeeded] Read it aloud" in worked and "Read it aloud" not in failed


def test_first_action_is_repeated_at_the_end():
    packet = full_packet()
    text = render_resume(packet)
    assert text.count(packet["next_step"]) == 2
    assert text.rstrip().endswith("- Tags: docs, copywriting, example, demo")
    assert "- Continues: 01JS5LTMEXAMPLEPACKET00000Z" in text


def test_minimal_v01_packet_omits_empty_sections():
    packet = minimal_packet(
        "01HV0000000000000000000001",
        "Fix the flaky login test",
        "Inject the clock",
        created_at="2026-04-18T22:41:03Z",
        version="0.1",
        decisions=[],
    )
    text = render_resume(packet)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Goal", "## Your first action"]
    for absent in ("Continues", "Author", "Tags"):
        assert f"- {absent}:" not in text
    assert "- Spec version: ltm 0.1" in text


def test_multiline_text_stays_inside_its_list_item():
    packet = example_packet()
    packet["constraints"] = ["first line\nsecond line"]
    text = render_resume(packet)
    assert "- first line\n  second line" in text


def test_ancestors_carry_their_locked_decisions_and_failed_attempts_once():
    root = minimal_packet(
        "01ROOTPACKET00000000000000",
        "Start",
        "Go on",
        created_at="2026-01-01T00:00:00Z",
        decisions=[
            {"what": "Use PostgreSQL", "why": "Concurrency", "locked": True},
            {"what": "Maybe Redis", "why": "Speed", "locked": False},
            {"what": "Keep the API", "why": "Clients", "locked": True},
        ],
        attempts=[
            {"tried": "SQLite WAL", "outcome": "failed", "learned": "Locks"},
            {"tried": "Indexes", "outcome": "succeeded"},
        ],
    )
    latest = minimal_packet(
        "01LATESTPACKET000000000000",
        "Finish",
        "Ship it",
        created_at="2026-01-02T00:00:00Z",
        parent_id=root["id"],
        decisions=[{"what": "Keep the API", "why": "Clients", "locked": True}],
    )
    block = render_resume(latest, [root])
    locked = block.split("## Locked decisions\n\n")[1].split("\n\n## ")[0]
    assert locked == (
        "- Keep the API\n  - Why: Clients\n"
        "- Use PostgreSQL\n  - Why: Concurrency\n  - From earlier packet: 01ROOTPACKET00000000000000"
    )
    failed = block.split("## Prior attempts that failed or were partial\n\n")[1].split("\n\n## ")[0]
    assert failed == "- [failed] SQLite WAL\n  - Learned: Locks\n  - From earlier packet: 01ROOTPACKET00000000000000"
    assert "Maybe Redis" not in block and "Indexes" not in block  # only what binds the next session
    assert render_resume(latest) == render_resume(latest, [])


def test_section_of_an_export_document():
    packet = example_packet()
    packet["goal"] = "Two\nlines"
    section = render_section(packet, ["Packet: `x`", "Personal"])
    assert section.startswith("## Two lines\n\n- Packet: `x`\n- Personal\n\n### Next step\n\n")
    assert "### Locked decisions" in section and "## Goal" not in section and "Your first action" not in section
