"""Running the checks of the vectors against one server, and cleaning up after each.

A check is a list of steps; each step is one request and what must come back. A check passes
when every step does, fails at its first step that does not, and is skipped when it needs a
capability the run lacks: a second account (--token2), or a feature the server's own answers say
it does not offer (capabilities.json probes it once per run).

Whatever a check creates (a packet pushed with 2xx, a team created with 2xx) is recorded from the
exchanges themselves and deleted when the check ends, passed or not; every id and team name is
fresh, so the run touches nothing it did not create.
"""

from __future__ import annotations

import json
import re
import secrets
import string
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field

from . import vectors
from .expect import judge
from .fixtures import Packets, read_pointer, run_start
from .template import MissingVariable, fill
from .wire import Exchange, send

MAX_WAIT = 30  # seconds a step may wait (a device flow's interval)
_PACKET_REFERENCE = re.compile(r"\$\{([A-Za-z0-9_]+)\.(?:id|created_at)\}")


@dataclass
class Result:
    group: str
    name: str
    outcome: str  # "pass", "fail" or "skip"
    spec: dict
    extension: bool = False
    detail: str = ""  # why it failed (the request, the answer, what was expected) or was skipped
    seconds: float = 0.0


@dataclass
class Context:
    """What one check has built so far."""

    variables: dict
    packets: Packets
    remembered: dict = field(default_factory=dict)  # step name -> Exchange
    created: list = field(default_factory=list)  # (cleanup path, who), in the order created


class Runner:
    def __init__(self, base: str, token: str, token2: str | None = None, timeout: float = 10.0):
        self.base = base.rstrip("/")
        self.tokens = {"alice": token, "bob": token2, "nobody": None}
        self.timeout = timeout
        self.clock = [run_start()]
        # Team names are made from it: ^[a-z0-9][a-z0-9_-]{0,39}$ leaves room for a suffix.
        self.tag = "cf" + "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(8))
        self.lacking: dict[str, str | None] = {}  # capability -> why it is missing, None when offered
        self.leftovers: list[str] = []  # what cleaning up could not delete

    # --- checks ------------------------------------------------------------------------

    def run(self, groups) -> list[Result]:
        return [self.check(group, check) for group in groups for check in group["checks"]]

    def check(self, group: dict, check: dict) -> Result:
        result = Result(group["group"], check["name"], "pass", check["spec"], group.get("extension", False))
        started = time.monotonic()
        why = self.missing(group.get("needs", []) + check.get("needs", []))
        if why:
            result.outcome, result.detail = "skip", why
            return result
        context = self.context(check)
        try:
            failure = self.steps(check["steps"], context)
        finally:
            self.clean_up(context)
        if failure:
            result.outcome, result.detail = "fail", failure
        result.seconds = time.monotonic() - started
        return result

    def context(self, check: dict) -> Context:
        # run_upper: the tag in capitals, for made-up values that must be upper case (an AWS key id).
        variables = {"run": self.tag, "run_upper": self.tag.upper(), "base": self.base, "uuid": str(uuid.uuid4())}
        context = Context(variables, Packets(self.clock))
        # Every packet the check names gets its id up front, so a step may name one pushed later
        # (or never: an id nobody has); in the order the steps name them, so that packets pushed
        # one after the other are also newer one after the other.
        for name in dict.fromkeys(_packet_names(check["steps"])):
            context.variables.update(context.packets.names(name))
        return context

    def steps(self, steps: list, context: Context) -> str | None:
        """Run the steps in order; None when all held, else the report of the first that did not."""
        for number, step in enumerate(steps, 1):
            if not _applies(step, context.variables):
                continue
            for repeat in range(step.get("repeat", 1)):
                context.variables["i"] = repeat
                try:
                    exchange, problems = self.step(step, context)
                except (MissingVariable, KeyError, ValueError) as exc:
                    return f"step {number} of {len(steps)} cannot be sent: {exc}"
                if problems:
                    return _failure(number, len(steps), step, exchange, problems, context)
        return None

    def step(self, step: dict, context: Context) -> tuple[Exchange, list[str]]:
        if "wait" in step:
            time.sleep(min(float(fill(step["wait"], context.variables)), MAX_WAIT))
        exchange = self.exchange(step, context)
        self.note_created(exchange, step.get("as", "alice"), context)
        expect = fill(step["expect"], context.variables)
        problems = judge(exchange, expect, packets=context.packets.latest, remembered=context.remembered)
        if not problems:
            for name, pointer in step.get("save", {}).items():
                try:
                    context.variables[name] = read_pointer(exchange.json(), pointer)
                except KeyError:
                    problems.append(f"the answer has nothing at {pointer} (saved as {name})")
            if "save_status" in step:
                context.variables[step["save_status"]] = exchange.status
            if "remember" in step:
                context.remembered[step["remember"]] = exchange
        return exchange, problems

    def exchange(self, step: dict, context: Context) -> Exchange:
        variables = context.variables
        headers, body = {}, b""
        who = self.tokens[step.get("as", "alice")]
        if who:
            headers["Authorization"] = f"Bearer {who}"
        if "packet" in step:
            variables.update(context.packets.names(fill(step["packet"]["name"], variables)))
            _, body = context.packets.build(fill(step["packet"], variables))
            headers["Content-Type"] = "application/json"
        elif "body" in step:
            body, headers["Content-Type"] = json.dumps(fill(step["body"], variables)).encode(), "application/json"
        elif "raw" in step:
            body, headers["Content-Type"] = fill(step["raw"], variables).encode("utf-8"), "application/json"
        elif "raw_hex" in step:
            body, headers["Content-Type"] = bytes.fromhex(step["raw_hex"]), "application/json"
        elif "form" in step:
            body = urllib.parse.urlencode(fill(step["form"], variables)).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers.update(fill(step.get("headers", {}), variables))
        url = fill(step["url"], variables) if "url" in step else self.base + fill(step["path"], variables)
        return send(url, step["method"], headers=headers, body=body, timeout=self.timeout)

    # --- what the server lacks -----------------------------------------------------------

    def missing(self, needs: list[str]) -> str | None:
        """Why the run cannot meet `needs`, or None when it can."""
        for need in needs:
            if need not in self.lacking:
                self.lacking[need] = self.detect(need)
            if self.lacking[need]:
                return self.lacking[need]
        return None

    def detect(self, capability: str) -> str | None:
        known = vectors.capabilities()[capability]
        if "option" in known:
            return None if self.tokens["bob"] else f"needs {known['description']}: pass {known['option']}"
        if "never" in known:
            return f"needs {known['description']}: {known['never']}"
        context = self.context({"steps": known["probe"]})
        try:
            failure = self.steps(known["probe"], context)
        finally:
            self.clean_up(context)
        return f"the server does not offer {known['description']}; the probe said:\n{failure}" if failure else None

    # --- cleaning up ---------------------------------------------------------------------

    def note_created(self, exchange: Exchange, who: str, context: Context) -> None:
        """Record what a successful push or team creation made, to delete it afterwards."""
        if exchange.method != "POST" or not 200 <= exchange.status < 300:
            return
        path = urllib.parse.urlsplit(exchange.url).path
        sent = _json_or_none(exchange.body)
        if path.endswith("/v1/packets") and isinstance(sent, dict) and isinstance(sent.get("id"), str):
            context.created.append((f"/v1/packets/{urllib.parse.quote(sent['id'], safe='')}", who))
        elif path.endswith("/v1/teams") and isinstance(sent, dict) and isinstance(sent.get("name"), str):
            context.created.append((f"/v1/teams/{urllib.parse.quote(sent['name'], safe='')}", who))

    def clean_up(self, context: Context) -> None:
        """Delete what the check created: packets first, then teams (which take their packets)."""
        ordered = sorted(dict.fromkeys(context.created), key=lambda item: item[0].startswith("/v1/teams/"))
        for path, who in ordered:
            self.delete(path, who)
        context.created.clear()

    def delete(self, path: str, who: str) -> None:
        token = self.tokens[who]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = send(self.base + path, "DELETE", headers=headers, timeout=self.timeout)
        if answer.status not in (200, 204, 404):
            self.leftovers.append(f"DELETE {path} as {who}: {answer.answer_text()}")


def _packet_names(steps: list):
    for step in steps:
        name = step.get("packet", {}).get("name", "")
        if name and "${" not in name:
            yield name
        yield from _PACKET_REFERENCE.findall(json.dumps(step))


def _applies(step: dict, variables: dict) -> bool:
    """A step with `when` runs only if each named variable holds one of the values listed (what
    an earlier answer said decides which of two correct outcomes to check)."""
    return all(variables.get(name) in allowed for name, allowed in step.get("when", {}).items())


def _json_or_none(data: bytes):
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        return None


def _failure(number: int, total: int, step: dict, exchange: Exchange, problems: list[str], context) -> str:
    who = step.get("as", "alice")
    try:
        expected = json.dumps(fill(step["expect"], context.variables), ensure_ascii=False)
    except MissingVariable:
        expected = json.dumps(step["expect"], ensure_ascii=False)
    return "\n".join(
        [
            f"step {number} of {total} (as {who}):",
            *("  " + line for line in exchange.request_text().splitlines()),
            "came back:",
            *("  " + line for line in exchange.answer_text().splitlines()),
            f"expected: {expected}",
            *(f"  - {problem}" for problem in problems),
        ]
    )
