"""Writes search_corpus.jsonl, the fixed corpus of the search quality test (run once; the data is
committed, so the test never depends on randomness):

    python packets/tests/search/make_search_corpus.py

Thirty hand-written packets (search_corpus_anchors.json) are the ones the test's queries look for;
two hundred more are made from a seeded mix of everyday engineering work that shares their
vocabulary (flaky tests, caches, migrations, deadlocks...), so a query has to find the right one
among near misses.
"""

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent


def packet(
    key,
    goal,
    next_step,
    *,
    project="",
    tags=(),
    decisions=(),
    attempts=(),
    criteria=(),
    constraints=(),
    methods=(),
    questions=(),
):
    data = {
        "ltm_version": "0.2",
        "id": f"01CORPUS{key.upper().replace('-', '')[:18]:0<18}",
        "goal": goal,
        "next_step": next_step,
    }
    if project:
        data["project"] = {"name": project}
    if tags:
        data["tags"] = list(tags)
    if decisions:
        data["decisions"] = [{"what": w, "why": y, "locked": True} for w, y in decisions]
    if attempts:
        data["attempts"] = [{"tried": t, "outcome": o, "learned": lesson} for t, o, lesson in attempts]
    if criteria:
        data["success_criteria"] = list(criteria)
    if constraints:
        data["constraints"] = list(constraints)
    if methods:
        data["methods"] = [{"name": n, "when_applicable": w, "how": h} for n, w, h in methods]
    if questions:
        data["open_questions"] = list(questions)
    return data


# The hand-written packets: each one packet()'s arguments by name.
ANCHORS = [packet(**anchor) for anchor in json.loads((HERE / "search_corpus_anchors.json").read_text())]

SUBSYSTEMS = [
    "checkout",
    "billing",
    "search indexer",
    "mobile app",
    "admin dashboard",
    "data pipeline",
    "notification service",
    "auth service",
    "CI pipeline",
    "docs site",
    "reporting job",
    "public API",
    "media worker",
    "calendar sync",
    "ledger",
    "onboarding flow",
]
PROBLEMS = [
    "flaky tests",
    "slow queries",
    "memory growth",
    "timeouts",
    "broken deploys",
    "missing translations",
    "high error rate",
    "failing migration",
    "stale cache entries",
    "duplicate emails",
    "race condition",
    "lock contention",
    "disk filling up",
    "noisy alerts",
    "slow cold start",
]
TECHS = [
    "PostgreSQL",
    "Redis",
    "Celery",
    "Kafka",
    "React",
    "Django",
    "Go",
    "Terraform",
    "Kubernetes",
    "S3",
    "Elasticsearch",
    "nginx",
    "GitHub Actions",
    "Sentry",
    "RabbitMQ",
]
VERBS = ["Fix", "Investigate", "Reduce", "Eliminate", "Understand", "Track down", "Work around"]
NEXT = [
    "Write a failing test that reproduces it",
    "Add metrics around {tech} and watch for a day",
    "Open a PR with the change and ask for review",
    "Roll the fix out to staging first",
    "Read the {tech} changelog for the version we run",
    "Pair with the on-call engineer to reproduce",
    "Profile the {sub} under production-like load",
    "Draft a design note for the team",
]
DECISIONS = [
    ("Keep {tech} at the current major version", "An upgrade now would mix two changes in one incident"),
    ("Log the request id on every line", "Correlating {sub} logs took hours"),
    ("Feature-flag the change", "We can turn it off without a deploy"),
    ("Write the fix behind a migration", "Old rows need the new column filled"),
    ("Alert on the p99, not the average", "Averages hid the slow tail in the {sub}"),
]
ATTEMPTS = [
    ("Restarted the {sub}", "partial", "It comes back after a few hours"),
    ("Added an index", "failed", "The planner still chose a sequential scan"),
    ("Increased the timeout", "failed", "Users waited longer and still failed"),
    ("Cleared the {tech} cache", "partial", "Helps until the next deploy"),
    ("Pinned the dependency", "succeeded", "The breaking change came from a minor release"),
]
TAGS = ["backend", "frontend", "ops", "bug", "performance", "testing", "security", "infra", "ux", "data"]
PROJECTS = ["shop-web", "shop-api", "billing", "infra", "mobile", "analytics", "handbook", "data-pipeline"]


def filler(rng: random.Random, number: int) -> dict:
    sub, problem, tech = rng.choice(SUBSYSTEMS), rng.choice(PROBLEMS), rng.choice(TECHS)
    fill = {"sub": sub, "tech": tech}
    decisions = [(w.format(**fill), y.format(**fill)) for w, y in rng.sample(DECISIONS, rng.randint(0, 2))]
    attempts = [
        (t.format(**fill), o, lesson.format(**fill)) for t, o, lesson in rng.sample(ATTEMPTS, rng.randint(0, 2))
    ]
    return packet(
        f"fill{number:04d}",
        f"{rng.choice(VERBS)} the {problem} in the {sub} ({tech})",
        rng.choice(NEXT).format(**fill),
        project=rng.choice(PROJECTS),
        tags=sorted(set(rng.sample(TAGS, rng.randint(1, 3)))),
        decisions=decisions,
        attempts=attempts,
        questions=[f"Is {tech} the right tool for the {sub}?"] if rng.random() < 0.2 else (),
    )


def main():
    rng = random.Random(20261124)
    packets = ANCHORS + [filler(rng, n) for n in range(200)]
    start = datetime(2026, 6, 1, tzinfo=UTC)
    order = list(range(len(packets)))
    rng.shuffle(order)  # anchors are not all the newest or the oldest
    with (HERE / "search_corpus.jsonl").open("w") as out:
        for position, data in zip(order, packets):
            data["created_at"] = (start + timedelta(hours=7 * position)).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.write(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
