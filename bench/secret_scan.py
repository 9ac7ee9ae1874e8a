"""CPU per packet of the hub's secret scan (packets.scan.detect), and its recall and false positives
on the test corpus (packets/tests/scan/secret_corpus/):

    python bench/secret_scan.py [--detect-secrets]

Times the protocol's example packet (the 3 KB packet `make bench` pushes), 3 KB packets made of
the corpus's look-alikes and 3 KB packets that carry a secret. --detect-secrets runs Yelp's
detect-secrets (not a dependency of the hub: install it beside, e.g. `pip install detect-secrets`)
over the same fields for comparison.
"""

import argparse
import json
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ltm.protocol.packet import example_packet  # noqa: E402
from packets.scan.detect import packet_fields, scan_packet  # noqa: E402

CORPUS = ROOT / "packets" / "scan" / "tests" / "secret_corpus"
SIZE = 3 * 1024


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text().splitlines()]


def grown(packet: dict, filler: list[dict]) -> dict:
    """The packet with the text fields of other packets appended until it is about SIZE bytes."""
    packet = json.loads(json.dumps(packet))
    for other in filler:
        if len(json.dumps(packet)) >= SIZE:
            break
        for key in ("constraints", "decisions", "attempts", "open_questions"):
            packet[key] = packet.get(key, []) + other.get(key, [])
    return packet


def microseconds_per_packet(scan, packets: list[dict], seconds: float = 2.0) -> float:
    """CPU time (process_time) per scan, over as many passes as fit in about `seconds`."""
    for packet in packets[:20]:
        scan(packet)  # warm: compiled patterns, caches
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for packet in packets:
            scan(packet)
        count += len(packets)
    return (time.process_time() - start) / count * 1e6


def measure(scan, secrets: list[dict], benign: list[dict]) -> dict:
    """Recall (a finding at the secret's path), kind accuracy and benign packets with any finding."""
    found, right_kind, per_kind = 0, 0, Counter()
    for record in secrets:
        kinds = {kind for path, kind in scan(record["packet"]) if path == record["path"]}
        if kinds:
            found += 1
            per_kind[record["kind"]] += 1
            right_kind += record["kind"] in kinds
    flagged = sum(1 for record in benign if scan(record["packet"]))
    return {
        "recall": found / len(secrets),
        "kind accuracy": right_kind / max(found, 1),
        "false positives": flagged / len(benign),
        "missed by kind": {
            kind: f"{per_kind[kind]}/{count}"
            for kind, count in Counter(r["kind"] for r in secrets).items()
            if per_kind[kind] < count
        },
    }


@contextmanager
def detect_secrets_scanner(entropy: bool):
    """A scan with detect-secrets' default plugins (or all but its two entropy ones) over the same
    fields, each field as a file's lines with the default filters, as `detect-secrets scan` does."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.core.scan import _process_line_based_plugins
    from detect_secrets.settings import transient_settings

    names = [plugin.__name__ for plugin in get_mapping_from_secret_type_to_class().values()]
    if not entropy:
        names = [name for name in names if "HighEntropy" not in name]

    def scan(packet: dict) -> list[tuple[str, str]]:
        findings = set()
        for path, text in packet_fields(packet):
            lines = list(enumerate(text.splitlines(), start=1))
            findings.update((path, secret.type) for secret in _process_line_based_plugins(lines, "packet.txt"))
        return sorted(findings)

    with transient_settings({"plugins_used": [{"name": name} for name in names]}):
        yield scan


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--detect-secrets", action="store_true", help="compare with detect-secrets")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per timing (default 2)")
    args = parser.parse_args()

    secrets, benign = load("secrets.jsonl"), load("benign.jsonl")
    plain = [r["packet"] for r in benign]
    lookalikes = [grown(p, plain[i + 1 :] + plain) for i, p in enumerate(plain[:200])]
    carrying = [grown(r["packet"], plain) for r in secrets]
    sets = {
        "example packet": [example_packet()],
        "3 KB of look-alikes": lookalikes,
        "3 KB with a secret": carrying,
    }

    report("packets.secret_scan", lambda packet: [tuple(f) for f in scan_packet(packet)], sets, secrets, benign, args)
    if args.detect_secrets:
        for entropy in (True, False):
            with detect_secrets_scanner(entropy) as scan:
                name = "detect-secrets" + ("" if entropy else ", without its entropy plugins")
                report(name, scan, sets, secrets, benign, args)


def report(name, scan, sets, secrets, benign, args):
    print(f"{name}:")
    for label, packets in sets.items():
        size = sum(len(json.dumps(packet)) for packet in packets) / len(packets)
        cost = microseconds_per_packet(scan, packets, args.seconds)
        print(f"  {label} ({size:.0f} bytes): {cost:.0f} µs per packet")
    for key, value in measure(scan, secrets, benign).items():
        if key == "kind accuracy" and name != "packets.secret_scan":
            continue  # detect-secrets names its kinds otherwise
        print(f"  {key}: {value:.1%}" if isinstance(value, float) else f"  {key}: {value}")


if __name__ == "__main__":
    main()
