"""Writes the fixed corpus of the secret scan's test (run once; the data is committed, so the test
never depends on randomness):

    python packets/tests/scan/secret_corpus/make_secret_corpus.py

secrets.jsonl: one made-up secret a line, in the real format of its kind (random characters from a
seeded generator, never a real key), placed in a realistic packet at a known path; some wrapped
over two lines, some inside a URL; then (a second generator, so the records above never change)
secrets outside the fields the client scans (project, provenance, ids, a third attempt) and
disguised ones (percent-escaped, with invisible characters inside, full-width, in base64 or hex,
or a password told in prose). benign.jsonl: packets with no secret but full of what looks like
one (commit SHAs, ULIDs, UUIDs, digests, base64 of plain text, long identifiers, the example keys
vendors publish, paths, URLs without credentials, versions, placeholders); then packets with a
project, provenance and ids, and the near misses of the disguises.

The sentences are in texts.json (packet_text.py reads it), the secrets' makers and disguises in
makers.py, the look-alikes in lookalikes.py.
"""

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lookalikes import LOOKALIKES, NEAR_MISSES, ulid, uuid
from makers import (
    DISGUISED_KINDS,
    DISGUISES,
    HEX,
    PLACE_MAKERS,
    SECRET_MAKERS,
    SPLIT_KINDS,
    URL_KINDS,
    password,
    rand,
    split,
)
from packet_text import (
    ELSEWHERE,
    PATHS,
    PROJECT_REFS,
    PROSE_TEMPLATES,
    TEMPLATES,
    URL_TEMPLATES,
    base_packet,
    put,
    third_attempt,
)

HERE = Path(__file__).resolve().parent
SEED = 20261126


def secret_records(rng):
    records = []
    per_kind = 9
    for kind, make in SECRET_MAKERS.items():
        for n in range(per_kind):
            secret = make(rng)
            form = "plain"
            if kind in URL_KINDS and n % 4 == 1:
                form = "url"
                sentence = f"The job fetches {rng.choice(URL_TEMPLATES).format(s=secret)}"
            else:
                if kind in SPLIT_KINDS and n % 4 == 2:
                    form, secret = "split", split(rng, secret)
                template = rng.choice(TEMPLATES[kind])
                if template.startswith("JWT_PRIVATE_KEY"):
                    secret = secret.replace("\n", "\\n")  # a .env file writes the key on one line
                sentence = template.format(s=secret)
            packet = base_packet(rng, f"01SECRET{len(records):018d}")
            path = rng.choice(PATHS)
            put(packet, path, sentence, rng)
            records.append(
                {
                    "kind": kind,
                    "form": form,
                    "path": path,
                    "secret": secret,
                    "packet": packet,
                }
            )
    return records


def benign_records(rng, count):
    records = []
    for n in range(count):
        packet = base_packet(rng, f"01BENIGN{n:018d}")
        for _ in range(rng.randint(3, 6)):
            put(packet, rng.choice(PATHS), rng.choice(LOOKALIKES)(rng), rng)
        records.append({"packet": packet})
    return records


def elsewhere_records(rng, first):
    records = []
    for n in range(len(ELSEWHERE) * 2):
        kind, path, template = ELSEWHERE[n % len(ELSEWHERE)]
        secret = PLACE_MAKERS.get(kind, SECRET_MAKERS[kind])(rng)
        packet = base_packet(rng, f"01SECRET{first + len(records):018d}")
        packet["project"] = {"name": "acme-shop", "ref": "github.com/acme/shop"}
        packet["provenance"] = {
            "author_model": "claude-sonnet-4-5",
            "author_human": "Anna Schmidt",
        }
        third_attempt(packet)
        value = template.format(s=secret)
        if path.startswith("attempts[2]"):
            packet["attempts"][2][path.rpartition(".")[2]] = value
        elif "." in path:
            group, _, key = path.partition(".")
            packet[group][key] = value
        else:
            packet[path] = value
        records.append(
            {
                "kind": kind,
                "form": "elsewhere",
                "path": path,
                "secret": secret,
                "packet": packet,
            }
        )
    return records


def disguised_records(rng, first):
    records = []
    for form, (disguise, templates) in DISGUISES.items():
        for n in range(8):
            kind = DISGUISED_KINDS[n % len(DISGUISED_KINDS)]
            secret = disguise(rng, SECRET_MAKERS[kind](rng))
            packet = base_packet(rng, f"01SECRET{first + len(records):018d}")
            third_attempt(packet)
            path = rng.choice([*PATHS, "attempts[2].learned"])
            put(packet, path, rng.choice(templates).format(s=secret), rng)
            records.append(
                {
                    "kind": kind,
                    "form": form,
                    "path": path,
                    "secret": secret,
                    "packet": packet,
                }
            )
    for n in range(12):
        secret = password(rng)
        packet = base_packet(rng, f"01SECRET{first + len(records):018d}")
        path = rng.choice(PATHS)
        put(
            packet,
            path,
            PROSE_TEMPLATES[n % len(PROSE_TEMPLATES)].format(s=secret),
            rng,
        )
        records.append(
            {
                "kind": "secret-assignment",
                "form": "prose",
                "path": path,
                "secret": secret,
                "packet": packet,
            }
        )
    return records


def benign_elsewhere_records(rng, count, first):
    records = []
    for n in range(count):
        packet = base_packet(rng, rng.choice([uuid(rng), ulid(rng)]))
        packet["parent_id"] = rng.choice([uuid(rng), ulid(rng), f"01BENIGN{first + n:018d}"])
        packet["project"] = {
            "name": rng.choice(["acme-shop", "infra", "billing-api", "Shop (EU)"]),
            "ref": rng.choice(PROJECT_REFS).format(sha=rand(rng, HEX, 40), n=rng.randint(10, 9999)),
        }
        packet["provenance"] = {
            "author_model": rng.choice(["claude-sonnet-4-5", "gpt-4o-2024-08-06", "gemini-2.5-pro"]),
            "author_human": rng.choice(["Anna Schmidt", "ops@acme.io", "Jörg Müller <jorg@acme.io>"]),
            "source_hash": f"sha256:{rand(rng, HEX, 64)}",
            "confidence": rng.choice(["low", "medium", "high"]),
        }
        for _ in range(rng.randint(3, 6)):
            put(packet, rng.choice(PATHS), rng.choice(NEAR_MISSES)(rng), rng)
        records.append({"packet": packet})
    return records


def main():
    rng = random.Random(SEED)
    start = datetime(2026, 6, 1, tzinfo=UTC)
    secrets, benign = secret_records(rng), benign_records(rng, 600)
    more = random.Random(SEED + 1)
    secrets += elsewhere_records(more, len(secrets))
    secrets += disguised_records(more, len(secrets))
    benign += benign_elsewhere_records(more, 150, len(benign))
    for name, records in (("secrets.jsonl", secrets), ("benign.jsonl", benign)):
        with (HERE / name).open("w") as out:
            for n, record in enumerate(records):
                record["packet"]["created_at"] = (start + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
