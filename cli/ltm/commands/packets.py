"""The packet commands: push (save), ls, show, pull, rm, publish, unpublish, resume, example, search,
and sharing: share, inbox, unshare."""

from __future__ import annotations

import sys

from .. import clipboard, verbs
from ..config import load_config
from ..errors import LtmError, UsageError
from ..output import note, packet_summary, plural, shorten, table, to_json, wants_json
from ..protocol.packet import canonical_json
from . import act, whole_number
from .findings import flagged_warning

PICKER_SIZE = 50
LIST_MAX = 500  # the most GET /v1/packets answers; beyond it (and below 1) the hub uses its default


def register(add) -> None:
    for name, help in (("push", "send a packet to the hub"), ("save", "save a packet to the hub (same as push)")):
        push = add(name, cmd_push, help)
        push.add_argument("file", nargs="?", default="-", help="packet file, or - for stdin (default)")
        push.add_argument("-t", "--team", help="push into this team instead of your personal packets")
        push.add_argument(
            "--allow-unredacted",
            action="store_true",
            help="push even when the redaction pre-flight finds secrets or machine paths",
        )
        push.add_argument(
            "--lenient",
            action="store_true",
            help="skip the local schema validation (the hub still validates and may reject); "
            "`ltm config set lenient true` makes it the default",
        )

    ls = add("ls", cmd_ls, "list your packets, newest first")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.add_argument(
        "--limit", type=whole_number(1, LIST_MAX), help=f"how many, 1 to {LIST_MAX} (the hub's default: 50)"
    )
    ls.add_argument("-t", "--team", help="list this team's packets")

    show = add("show", cmd_show, "show a packet")
    show.add_argument("--json", action="store_true", help="print the packet JSON")
    show.add_argument("id", help="packet id, or a public link (<hub>/p/...) to read with no account")

    add("pull", cmd_pull, "print a packet's JSON").add_argument(
        "id", help="packet id, or a public link (<hub>/p/...) to read with no account"
    )
    add("rm", cmd_rm, "delete a packet").add_argument("id", help="packet id")
    add("publish", cmd_publish, "make a public read-only page for a packet").add_argument("id", help="packet id")
    add("unpublish", cmd_unpublish, "take a packet's public page down").add_argument("id", help="packet id")

    resume = add("resume", cmd_resume, "the resume block of a packet, for a new agent session")
    resume.add_argument(
        "id",
        nargs="?",
        help="packet id or public link (default: pick from the packets shared with you and not read yet, "
        "then your 50 newest)",
    )
    resume.add_argument(
        "--thread",
        action="store_true",
        help="resume the newest packet of the id's thread, with the locked decisions and "
        "failed attempts of the packets it continues",
    )
    copy = resume.add_mutually_exclusive_group()
    copy.add_argument(
        "--copy",
        dest="copy",
        action="store_true",
        default=None,
        help="copy to the clipboard (the default when no id is given: the picker)",
    )
    copy.add_argument("--no-copy", dest="copy", action="store_false", help="print to stdout")


def register_example(add) -> None:
    add("example", cmd_example, "print an example packet (with a fresh id and time, ready to push)")


def cmd_push(args) -> int:
    raw = _read_input(args.file)
    lenient = args.lenient or load_config()["lenient"] is True
    pushed = verbs.push(raw, team=args.team, lenient=lenient, allow_unredacted=args.allow_unredacted)
    print(pushed.id)
    where = f"team {args.team}" if args.team else "your packets"
    note(f"pushed to {where} on {pushed.host}; resume it anywhere with `ltm resume {pushed.id}`")
    if pushed.findings:
        flagged_warning(pushed)
    return 0


def cmd_ls(args) -> int:
    packets = verbs.list_packets(limit=args.limit, team=args.team)
    if wants_json(args.json):  # the hub's shape, as the Go client prints it: {"packets": [...]}
        print(to_json({"packets": packets}))
    elif not packets:
        if args.team:
            note(f"no packets in team {args.team} yet; push one with `ltm push <file> -t {args.team}`")
        elif where := verbs.elsewhere():
            note(f"no personal packets; yours are elsewhere: {_where(where)}")
        else:
            note("no packets yet; push one with `ltm push <file>`")
    else:
        rows = [(p.get("id", ""), p.get("created_at", ""), shorten(p.get("goal", ""), 70)) for p in packets]
        table(["ID", "CREATED", "GOAL"], rows)
    return 0


def cmd_show(args) -> int:
    packet, headers = verbs.show(args.id)
    if wants_json(args.json):
        print(canonical_json(packet), end="")
    else:
        # Read from a public link, the id alone would not do for someone with no account (or no access).
        link = args.id.strip() if verbs.public_link(args.id) else None
        print(packet_summary(packet, headers, read_from=link))
    return 0


def cmd_pull(args) -> int:
    print(canonical_json(verbs.pull(args.id)), end="")
    return 0


cmd_rm = act("rm", "id", "deleted {id}")
cmd_publish = act("publish", "id", "published {id}; anyone with the link can read it. Undo with `ltm unpublish {id}`")
cmd_unpublish = act("unpublish", "id", "unpublished {id}; its public link no longer works")


def cmd_resume(args) -> int:
    packet_id = args.id or _pick_packet()
    if args.thread and verbs.public_link(packet_id):
        raise UsageError("--thread needs a packet id: a public link shows one packet")
    block = verbs.resume_thread(packet_id) if args.thread else verbs.resume(packet_id)
    # As the Go client: the picker's choice goes to the clipboard, a given id to stdout.
    copy = args.copy if args.copy is not None else args.id is None
    if copy:
        tool = clipboard.copy(block)
        if tool:
            note(f"copied the resume block of {packet_id} to the clipboard ({tool}); paste it into your agent")
            return 0
        note("no clipboard tool found (pbcopy, wl-copy, xclip, xsel or clip.exe); printing the block instead")
    print(block, end="")
    return 0


def _pick_packet() -> str:
    """Number the packets shared with the person and not read yet, then their newest, on stderr
    and read the choice from stdin."""
    packets = verbs.resume_choices(PICKER_SIZE)
    if not packets:
        where = verbs.elsewhere()
        raise LtmError(
            "no personal packets to resume, and nothing unread shared with you; "
            + (
                f"yours are elsewhere: {_where(where)}; resume one by id: `ltm resume <id>`"
                if where
                else "push one with `ltm push <file>`"
            )
        )
    for number, packet in enumerate(packets, 1):
        shared = f"  (new, shared by {packet['shared_by']})" if packet["shared_by"] else ""
        note(f"{number:>3}  {packet.get('created_at', '')[:16]}  {shorten(packet.get('goal', ''), 60)}{shared}")
    sys.stderr.write(f"resume which packet? [1-{len(packets)}] ")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:  # end of input (a closed or empty pipe): nobody is there to choose
        sys.stderr.write("\n")
        raise LtmError("no packet chosen (end of input); pass the id instead: `ltm resume <id>` (`ltm ls` lists them)")
    answer = line.strip()
    if not answer:
        raise LtmError("no packet chosen; run `ltm resume` again, or pass the id: `ltm resume <id>`")
    if not answer.isdigit() or not 1 <= int(answer) <= len(packets):
        raise UsageError(f"not a number from 1 to {len(packets)}: {answer!r}")
    return str(packets[int(answer) - 1]["id"])


def _where(where: verbs.Elsewhere) -> str:
    """Where a person's packets are, with the command that lists each place."""
    places = [f"team {name} (`ltm ls -t {name}`)" for name in where.teams]
    if where.more_teams:
        places.append("your other teams (`ltm teams ls`, then `ltm ls -t TEAM`)")
    if where.shared:
        places.append(f"{plural(where.shared, 'packet')} shared with you (`ltm inbox`)")
    return ", ".join(places)


def cmd_example(args) -> int:
    # A fresh id and time: the protocol's fixed id is taken by whoever pushed it first on a hub.
    print(to_json(verbs.example()))
    return 0


def _read_input(source: str) -> bytes:
    if source == "-":
        if sys.stdin.isatty():
            raise UsageError("pass a packet file, or pipe one in: `ltm push packet.json` or `... | ltm push -`")
        return sys.stdin.buffer.read()
    try:
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise LtmError(f"cannot read {source}: {exc.strerror}") from None


# --- search -----------------------------------------------------------------------------------


def register_search(add) -> None:
    search = add("search", cmd_search, "find packets by their words and their meaning, best first")
    search.add_argument(
        "text",
        nargs="+",
        help='words, "quoted phrases", -word to exclude, OR, or a packet id; '
        "quote the whole query when a word starts with -",
    )
    search.add_argument("-t", "--team", help="search only this team's packets (default: yours and every team's)")
    search.add_argument("--limit", type=int, help="how many (the hub's default is 20, at most 100)")
    search.add_argument(
        "--mode",
        choices=["hybrid", "keyword", "semantic"],
        help="hybrid: words and meaning, fused (the hub's default); keyword: the words alone; semantic: meaning alone",
    )
    search.add_argument("--json", action="store_true", help="print JSON")


def result_line(result: dict) -> str:
    """A search result (or a related packet) in one line: id, day, where it is, goal."""
    where = f"team {result.get('team')}" if result.get("team") else "personal"
    if result.get("shared_by"):
        where = f"shared by {result['shared_by']}"
    return f"{result.get('id', '')}  {str(result.get('created_at', ''))[:10]}  {where}  {shorten(result.get('goal', ''), 70)}"


def cmd_search(args) -> int:
    text = " ".join(args.text)
    results = verbs.search(text, team=args.team, limit=args.limit, mode=args.mode)
    if wants_json(args.json):  # the hub's shape: {"results": [...]}
        print(to_json({"results": results}))
    elif not results:
        note(f"no packets match {text!r}" + (f" in team {args.team}" if args.team else ""))
    else:
        for result in results:
            print(result_line(result))
            print(f"    {shorten(result.get('snippet', ''), 100)}")
    return 0


# --- shares: a packet handed to one person by username ------------------------------------------

INBOX_MAX = verbs.SHARES_MAX


def register_shares(add) -> None:
    share = add("share", cmd_share, "hand a packet to one person by username: they may read it, never change it")
    share.add_argument("id", help="packet id")
    share.add_argument("username", help="the username they sign in with")
    share.add_argument("--note", help="a word for them, at most 500 characters (sharing again replaces it)")

    inbox = add("inbox", cmd_inbox, "the packets shared with you, newest first (* not read yet)")
    inbox.add_argument("--sent", action="store_true", help="list the shares you made instead (* not read by them yet)")
    inbox.add_argument(
        "--limit", type=whole_number(1, INBOX_MAX), help=f"how many, 1 to {INBOX_MAX} (the hub's default: 50)"
    )
    inbox.add_argument("--json", action="store_true", help="print JSON")

    unshare = add("unshare", cmd_unshare, "withdraw a share you made, or dismiss one made to you")
    unshare.add_argument("share_id", help="the share's id, as `ltm inbox` (or `ltm inbox --sent`) lists it")


def cmd_share(args) -> int:
    share, created = verbs.share(args.id, args.username, args.note)
    print(share.get("id", ""))
    recipient = (share.get("to") or {}).get("display") or args.username
    if "state" in share:  # someone on another hub (federation): their hub takes it after this
        note(f"sending {args.id} to {args.username}: `ltm inbox --sent` shows when their hub has taken it")
    elif created:
        withdraw = f"`ltm unshare {share.get('id')}`"
        note(f"shared {args.id} with {recipient}; it is in their `ltm inbox`. Withdraw it with {withdraw}")
    else:
        note(f"{recipient} already had {args.id} from you: the same share, its note now as given")
    return 0


def _person(who: dict, state: str | None) -> str:
    """A person of this hub by name; one of another hub by address, with the share's state."""
    return who.get("display") or f"{who.get('address', '')} ({state})"


def cmd_inbox(args) -> int:
    shares = verbs.shares(verbs.SENT if args.sent else verbs.INBOX, limit=args.limit)
    if wants_json(args.json):  # the hub's shape: {"shares": [...]}
        print(to_json({"shares": shares}))
        return 0
    if not shares:
        note(
            "you have shared no packet; `ltm share <id> <username>` hands one on"
            if args.sent
            else "nothing shared with you yet"
        )
        return 0
    person = "to" if args.sent else "from"
    rows = [
        (
            (" " if share.get("seen") else "*") + share.get("id", ""),
            share.get("packet_id", ""),
            _person(share.get(person) or {}, share.get("state")),
            str(share.get("created_at", ""))[:16],
            shorten(share.get("goal", ""), 50),
            shorten(share.get("note", ""), 40),
        )
        for share in shares
    ]
    table([" SHARE", "PACKET", person.upper(), "SHARED", "GOAL", "NOTE"], rows)
    if args.sent:
        note("* not read by them yet; `ltm unshare <share>` withdraws a share")
    else:
        note("* not read yet; `ltm resume <packet>` reads one, `ltm unshare <share>` dismisses it")
    return 0


cmd_unshare = act("unshare", "share_id", "share {share_id} ended; the packet is no longer shared through it")
