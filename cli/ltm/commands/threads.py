"""Commands over many packets: thread (a parent_id chain), export and import."""

from __future__ import annotations

import os
import sys

from .. import verbs
from ..errors import LtmError
from ..output import note, plural, shorten, table, to_json, wants_json


def register(add) -> None:
    thread = add("thread", cmd_thread, "show the thread (parent_id chain) a packet belongs to, oldest first")
    thread.add_argument("--json", action="store_true", help="print the hub's JSON")
    thread.add_argument("id", help="packet id: any packet of the thread")

    export = add("export", cmd_export, "download every packet you can read (or a team's)")
    export.add_argument(
        "--format",
        choices=verbs.EXPORT_FORMATS,
        default="jsonl",
        help="jsonl (default): one packet a line, for `ltm import`; markdown: one document",
    )
    export.add_argument("-t", "--team", help="only this team's packets")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")

    load = add("import", cmd_import, "push every packet of a JSON-lines file (as `ltm export` writes)")
    load.add_argument("file", help="a .jsonl file: one packet a line")
    load.add_argument("-t", "--team", help="push into this team instead of your personal packets")
    load.add_argument(
        "--allow-unredacted",
        action="store_true",
        help="push packets even when the redaction pre-flight finds secrets or machine paths",
    )


def cmd_thread(args) -> int:
    packets = verbs.thread(args.id)
    if wants_json(args.json):
        print(to_json({"packets": packets}))
        return 0
    depth: dict[str, int] = {}
    rows = []
    for packet in packets:
        parent = packet.get("parent_id")
        depth[packet["id"]] = depth[parent] + 1 if parent in depth else 0
        marker = "*" if packet["id"] == args.id else " "
        goal = "  " * depth[packet["id"]] + shorten(packet.get("goal", ""), 60)
        rows.append((marker + packet["id"], packet.get("created_at", ""), packet.get("team") or "personal", goal))
    table([" ID", "CREATED", "TEAM", "GOAL"], rows)
    note(f"resume the newest with `ltm resume {args.id} --thread`")
    return 0


def cmd_export(args) -> int:
    with verbs.export(args.format, args.team) as (total, chunks):
        # The file is opened once the hub has said yes, so a refusal leaves no empty file behind.
        try:
            out = open(args.output, "wb") if args.output else sys.stdout.buffer
        except OSError as exc:
            raise LtmError(f"cannot write {args.output}: {exc.strerror}") from None
        progress = Progress(total, args.format) if sys.stderr.isatty() else None
        try:
            for chunk in chunks:
                out.write(chunk)
                if progress:
                    progress.update(chunk)
        except BaseException:
            if args.output:  # half an export must not pass for a whole one
                out.close()
                os.unlink(args.output)
            raise
        finally:
            if progress:
                progress.done()
            if args.output:
                out.close()
            else:
                out.flush()
    if args.output:
        note(f"exported {'packets' if total is None else plural(total, 'packet')} to {args.output}")
    return 0


class Progress:
    """A one-line progress bar on stderr: packets (lines of jsonl, sections of markdown) of the
    total the hub announced, else bytes."""

    WIDTH = 30

    def __init__(self, total: int | None, format: str):
        self.total, self.format = total, format
        self.seen = self.bytes = 0

    def update(self, chunk: bytes) -> None:
        self.bytes += len(chunk)
        self.seen += chunk.count(b"\n") if self.format == "jsonl" else chunk.count(b"\n---\n")
        if self.total:
            done = min(self.seen, self.total)
            filled = self.WIDTH * done // self.total
            line = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{self.total} packets"
        else:
            line = f"{self.bytes // 1024} KiB"
        sys.stderr.write(f"\rltm: exporting {line}")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\n")


def cmd_import(args) -> int:
    try:
        handle = open(args.file, "rb")
    except OSError as exc:
        raise LtmError(f"cannot read {args.file}: {exc.strerror}") from None
    counts = {"pushed": 0, "already there": 0, "refused": 0}
    with handle:
        for result in verbs.import_packets(handle, team=args.team, allow_unredacted=args.allow_unredacted):
            counts[result.outcome] += 1
            if result.outcome == "refused":
                note(f"line {result.line} ({result.id or 'no id'}): refused: {result.reason}")
            else:
                print(f"{result.outcome}\t{result.id}")
            if result.findings:
                flagged = ", ".join(verbs.finding_lines(result.findings))
                note(
                    f"line {result.line} ({result.id}): the hub's secret scan flagged {flagged}; see `ltm findings {result.id}`"
                )
    note(f"{counts['pushed']} pushed, {counts['already there']} already there, {counts['refused']} refused")
    return 1 if counts["refused"] else 0
