"""Whether an answer is what a step expects: the `expect` part of a vector, judged.

Every rule is one a runner in another language can apply with its standard library and a JSON
Schema validator; `judge` answers the list of what did not hold, empty when everything did.
"""

from __future__ import annotations

import json

import jsonschema

from ..protocol.packet import parse_timestamp
from .wire import Exchange


def status_matches(wanted, status: int) -> bool:
    """`wanted` is a status (201), a list of them ([200, 204]) or a class ("4xx")."""
    if isinstance(wanted, list):
        return status in wanted
    if isinstance(wanted, str):
        return str(status)[0] == wanted[0] and len(str(status)) == 3
    return status == wanted


def judge(exchange: Exchange, expect: dict, *, packets: dict, remembered: dict) -> list[str]:
    if exchange.problem:
        return [f"no answer: {exchange.problem}"]
    problems = []
    if "status" in expect and not status_matches(expect["status"], exchange.status):
        problems.append(f"status {exchange.status}, expected {expect['status']}")
    body = exchange.json()
    if "error" in expect:
        problems += _error_problems(body, expect["error"])
    if "schema" in expect:
        problems += _schema_problems(body, expect["schema"])
    if "packet" in expect:
        problems += _packet_problems(body, packets.get(expect["packet"]), expect["packet"])
    for name, present in expect.get("headers", {}).items():
        if (exchange.header(name) is not None) != present:
            problems.append(f"header {name} is {'missing' if present else 'present, and must not be'}")
    text = exchange.answer.decode("utf-8", "replace")
    problems += [
        f"the answer does not contain {piece!r}" for piece in expect.get("text_contains", []) if piece not in text
    ]
    if "same_as" in expect:
        problems += _same_as_problems(exchange, expect["same_as"], remembered)
    return problems


def _error_problems(body, wanted) -> list[str]:
    """`true`: the body is {"error": "<message>"}; a string: and the message is exactly that."""
    message = body.get("error") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message.strip():
        return ['the body is not {"error": "<message>"}']
    if isinstance(wanted, str) and message != wanted:
        return [f"error {message!r}, expected {wanted!r}"]
    return []


def _schema_problems(body, schema: dict) -> list[str]:
    if body is None:
        return ["the body is not JSON"]
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{error.json_path}: {_short(error.message)}" for error in validator.iter_errors(body)]


def _packet_problems(body, pushed, name: str) -> list[str]:
    """The body is the same JSON value as the packet pushed, `created_at` the same instant."""
    if pushed is None:
        return [f"the check pushed no packet named {name!r}"]
    if _comparable(body) != _comparable(pushed):
        return [f"the body is not the packet that was pushed: {_difference(body, pushed)}"]
    return []


def _comparable(packet):
    if isinstance(packet, dict) and isinstance(packet.get("created_at"), str):
        moment = parse_timestamp(packet["created_at"])
        return {**packet, "created_at": moment or packet["created_at"]}
    return packet


def _difference(body, pushed) -> str:
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    for key in sorted(set(body) | set(pushed)):
        if key not in body:
            return f"{key} is missing"
        if key not in pushed:
            return f"{key} was added"
        if _comparable({key: body[key]}) != _comparable({key: pushed[key]}):
            return f"{key} is {_short(json.dumps(body[key]))}, was pushed as {_short(json.dumps(pushed[key]))}"
    return "they differ"


def _same_as_problems(exchange: Exchange, same_as: dict, remembered: dict) -> list[str]:
    """The same status and body as an earlier answer, once each `replace` key is swapped for its
    value in that answer: e.g. a stranger's 404 on an existing packet is word for word the 404 on
    an id nobody has."""
    earlier = remembered.get(same_as["step"])
    if earlier is None:
        return [f"no earlier step remembered as {same_as['step']!r}"]
    expected = earlier.answer.decode("utf-8", "replace")
    for old, new in same_as.get("replace", {}).items():
        expected = expected.replace(old, new)
    if (exchange.status, _normal(exchange.answer.decode("utf-8", "replace"))) != (earlier.status, _normal(expected)):
        return [f"the answer differs from step {same_as['step']!r}'s: {earlier.status} {_short(expected)}"]
    return []


def _normal(text: str):
    """A JSON body compared as a value, anything else as text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
