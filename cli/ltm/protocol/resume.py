"""The resume block: a packet rendered as markdown for a fresh agent session.

The order follows the contract (protocol README, section 7): what matters most comes first and
last, because agents attend best to the start and the end of a long prompt. Shared by the CLI
(`ltm resume`) and the hub's publish page, so both give the same text.
"""

from __future__ import annotations

PREAMBLE = (
    "This block resumes earlier work. Treat it as authoritative: locked decisions are settled "
    "and not to be reopened, attempts that failed must not be retried without new information, "
    'and "Your first action" below is what to do first.'
)


def render_resume(packet: dict, ancestors: list[dict] = ()) -> str:
    """The markdown resume block of a v0.1 or v0.2 packet. Empty sections are left out.

    `ancestors` (the packets it continues, oldest first) carry their locked decisions and their
    failed or partial attempts into the block: what was settled or ruled out earlier in the
    thread still holds. Each carried item names the packet it comes from."""
    next_step = _text(packet.get("next_step"))
    sections = _sections(packet, ancestors)
    parts = ["# Resume from ltm packet", PREAMBLE]
    parts += [f"## {title}\n\n{body}" for title, body in sections if body]
    if next_step:
        parts.append(f"**Reminder, your first action:** {next_step}")
    parts.append(_about(packet))
    return "\n\n".join(parts) + "\n"


def render_thread_resume(items: list[dict], packet_of) -> str:
    """The resume block of a thread's newest packet (`items` oldest first, as the `thread` tool
    lists them), with the packets it continues carried in; `packet_of(id)` reads one packet."""
    latest, lineage = thread_lineage(items)
    return render_resume(packet_of(latest), [packet_of(ancestor) for ancestor in lineage])


def thread_lineage(items: list[dict]) -> tuple[str, list[str]]:
    """For a thread (oldest first): the newest packet's id and the ids of the packets it
    continues, oldest first. A cycle of parent_ids stops the walk."""
    by_id = {item["id"]: item for item in items}
    latest = items[-1]["id"]
    lineage, seen = [], {latest}
    parent = by_id[latest].get("parent_id")
    while parent in by_id and parent not in seen:
        seen.add(parent)
        lineage.append(parent)
        parent = by_id[parent].get("parent_id")
    return latest, list(reversed(lineage))


def render_section(packet: dict, facts: list[str]) -> str:
    """One packet as a section of a longer markdown document (the hub's export): `## goal`, the
    `facts` as a list, then the same sections as the resume block, one level down."""
    goal = " ".join(_text(packet.get("goal")).split())
    parts = [f"## {goal}", "\n".join(f"- {fact}" for fact in facts)]
    sections = [("Next step", _text(packet.get("next_step")))] + [
        (title, body) for title, body in _sections(packet) if title not in ("Goal", "Your first action")
    ]
    parts += [f"### {title}\n\n{body}" for title, body in sections if body]
    return "\n\n".join(part for part in parts if part) + "\n"


def _sections(packet: dict, ancestors: list[dict] = ()) -> list[tuple[str, str]]:
    """The resume block's sections in the contract's order, as (title, markdown body)."""
    decisions = _dicts(packet.get("decisions"))
    attempts = _dicts(packet.get("attempts"))
    locked = [_decision(d) for d in decisions if d.get("locked") is True]
    tentative = [d for d in decisions if d.get("locked") is not True]
    unresolved = [_attempt(a) for a in attempts if a.get("outcome") in ("failed", "partial")]
    worked = [a for a in attempts if a.get("outcome") == "succeeded"]
    seen = set(locked + unresolved)  # a packet often repeats what it continues: say it once
    for ancestor in ancestors:
        source = f"\n  - From earlier packet: {_text(ancestor.get('id'))}"
        carried_decisions = [_decision(d) for d in _dicts(ancestor.get("decisions")) if d.get("locked") is True]
        carried_attempts = [
            _attempt(a) for a in _dicts(ancestor.get("attempts")) if a.get("outcome") in ("failed", "partial")
        ]
        for carried, into in ((carried_decisions, locked), (carried_attempts, unresolved)):
            into += [item + source for item in carried if item not in seen]
            seen.update(carried)
    return [
        ("Goal", _text(packet.get("goal"))),
        ("Success criteria", _bullets(packet.get("success_criteria"))),
        ("Locked decisions", "\n".join(locked)),
        ("Prior attempts that failed or were partial", "\n".join(unresolved)),
        ("Your first action", _text(packet.get("next_step"))),
        ("Constraints", _bullets(packet.get("constraints"))),
        ("Reusable methods", "\n".join(_method(m) for m in _dicts(packet.get("methods")))),
        ("Attempts that worked", "\n".join(_attempt(a) for a in worked)),
        ("Tentative decisions", "\n".join(_decision(d) for d in tentative)),
        ("Open questions", _bullets(packet.get("open_questions"))),
        ("Project", _project(packet.get("project"))),
    ]


def _about(packet: dict) -> str:
    """The closing facts: where this packet sits and who wrote it."""
    lines = [f"- Packet: {_text(packet.get('id'))}", f"- Spec version: ltm {_text(packet.get('ltm_version'))}"]
    if packet.get("parent_id"):
        lines.append(f"- Continues: {_text(packet['parent_id'])}")
    if packet.get("created_at"):
        lines.append(f"- Created: {_text(packet['created_at'])}")
    author = _author(packet.get("provenance"))
    if author:
        lines.append(f"- Author: {author}")
    tags = [_text(t) for t in packet.get("tags") or [] if t]
    if tags:
        lines.append(f"- Tags: {', '.join(tags)}")
    return "---\n\n" + "\n".join(lines)


def _author(provenance) -> str:
    if not isinstance(provenance, dict):
        return ""
    human = _text(provenance.get("author_human"))
    model = _text(provenance.get("author_model"))
    confidence = _text(provenance.get("confidence"))
    if human and model:
        author = f"{human} with {model}"
    else:
        author = human or model
    if author and confidence:
        author += f" (confidence: {confidence})"
    return author


def _item(first_line: str, item: dict, details: list[tuple[str, str]]) -> str:
    """A list item and its sub-items: one `- Label: value` line per detail field that is set."""
    lines = [first_line]
    for label, field in details:
        if item.get(field):
            lines.append(f"  - {label}: {_text(item[field], '    ')}")
    return "\n".join(lines)


def _decision(decision: dict) -> str:
    return _item(f"- {_text(decision.get('what'), '  ')}", decision, [("Why", "why"), ("Consequences", "consequences")])


def _attempt(attempt: dict) -> str:
    first = f"- [{_text(attempt.get('outcome'))}] {_text(attempt.get('tried'), '  ')}"
    return _item(first, attempt, [("Learned", "learned"), ("Confidence", "confidence")])


def _method(method: dict) -> str:
    return _item(f"- **{_text(method.get('name'))}**", method, [("When", "when_applicable"), ("How", "how")])


def _project(project) -> str:
    if not isinstance(project, dict):
        return ""
    name, ref = _text(project.get("name")), _text(project.get("ref"))
    if name and ref:
        return f"{name} ({ref})"
    return name or ref


def _bullets(items) -> str:
    return "\n".join(f"- {_text(item, '  ')}" for item in items or [] if _text(item))


def _dicts(items) -> list[dict]:
    return [item for item in items or [] if isinstance(item, dict)]


def _text(value, indent: str = "") -> str:
    """A field as text; continuation lines are indented so they stay inside their list item."""
    if value is None:
        return ""
    if isinstance(value, str) and value.isprintable():  # one line (no line breaks): the common case, fast
        return value.strip()
    lines = [line.rstrip() for line in str(value).strip().splitlines()]
    return ("\n" + indent).join(line for line in lines if line)
