"""The text of the corpus's packets, read from texts.json (every sentence a packet is written
from, and how each kind of secret is written into one), and the packet built from it."""

import json
from pathlib import Path

_TEXTS = json.loads((Path(__file__).resolve().parent / "texts.json").read_text())
PATHS = _TEXTS["PATHS"]  # the text fields the scan reads, as base_packet fills them
SUBSYSTEMS, TECHS, WORDS = _TEXTS["SUBSYSTEMS"], _TEXTS["TECHS"], _TEXTS["WORDS"]
GOALS, NEXT, CRITERIA, CONSTRAINTS = (
    _TEXTS["GOALS"],
    _TEXTS["NEXT"],
    _TEXTS["CRITERIA"],
    _TEXTS["CONSTRAINTS"],
)
DECISIONS, ATTEMPTS, QUESTIONS = (
    _TEXTS["DECISIONS"],
    _TEXTS["ATTEMPTS"],
    _TEXTS["QUESTIONS"],
)
# How a person or an agent writes each kind into a packet ({s} is the secret); in a URL; where the
# client does not look, as (kind, path, template); told in prose.
TEMPLATES, URL_TEMPLATES = _TEXTS["TEMPLATES"], _TEXTS["URL_TEMPLATES"]
ELSEWHERE, PROSE_TEMPLATES = _TEXTS["ELSEWHERE"], _TEXTS["PROSE_TEMPLATES"]
PROJECT_REFS = _TEXTS["PROJECT_REFS"]


def text(rng, templates):
    return rng.choice(templates).format(sub=rng.choice(SUBSYSTEMS), tech=rng.choice(TECHS))


def base_packet(rng, key):
    """A packet with every field of PATHS filled with ordinary engineering notes."""
    return {
        "ltm_version": "0.2",
        "id": key,
        "goal": text(rng, GOALS),
        "next_step": text(rng, NEXT),
        "success_criteria": [text(rng, CRITERIA)],
        "constraints": [text(rng, CONSTRAINTS), text(rng, CONSTRAINTS)],
        "decisions": [
            {
                "what": w.format(sub="the service", tech="it"),
                "why": y.format(sub="service", tech="it"),
                "consequences": "Revisit once the build is stable",
                "locked": True,
            }
            for w, y in rng.sample(DECISIONS, 2)
        ],
        "methods": [
            {
                "name": "check-the-env",
                "when_applicable": "When a job fails only in CI",
                "how": "Print the job's environment names (never values) and compare with a local run",
            }
        ],
        "attempts": [
            {
                "tried": t.format(sub="service", tech="Redis"),
                "outcome": "failed",
                "learned": lesson.format(tech="it"),
            }
            for t, lesson in rng.sample(ATTEMPTS, 2)
        ],
        "open_questions": [text(rng, QUESTIONS)],
        "tags": ["ci", "debugging"],
    }


def put(packet, path, sentence, rng):
    """Sets or extends the text at path (e.g. `attempts[1].learned`) with sentence."""
    name, _, rest = path.partition("[")
    if not rest:
        target, key = packet, name
    else:
        index, _, key = rest.partition("]")
        target = packet[name]
        key = key.lstrip(".")
        if not key:
            target, key = target, int(index)
        else:
            target = target[int(index)]
    old = target[key]
    target[key] = sentence if rng.random() < 0.4 else f"{old}. {sentence}"


def third_attempt(packet):
    packet["attempts"].append(
        {
            "tried": "Asked the platform team",
            "outcome": "partial",
            "learned": "They will check",
        }
    )
