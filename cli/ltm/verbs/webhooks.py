"""The webhook verbs (this hub's extension): add, list, remove, ping, and a webhook's deliveries."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from .session import connect, unless_missing

EVENTS = (
    "packet.created",
    "packet.updated",
    "packet.deleted",
    "packet.published",
    "packet.unpublished",
    "packet.shared",
    "packet.flagged",
    "finding.cleared",
    "member.joined",
    "member.left",
)


def _path(webhook_id: str, *rest: str) -> str:
    return "/".join(["/v1/webhooks", quote(webhook_id, safe=""), *rest])


def _missing(webhook_id: str) -> str:
    return f"webhook {webhook_id} not found; list yours with `ltm webhooks ls`"


def add_webhook(url: str, events: list[str], team: str | None = None, format: str | None = None) -> dict:
    """A new webhook, with its secret (`secret`), which the hub shows only this once."""
    body = {"url": url, "events": events, "team": team, **({"format": format} if format else {})}
    return connect().call("POST", "/v1/webhooks", json_body=body, expect=(201,)).json()


def list_webhooks(team: str | None = None) -> list[dict]:
    """Your webhooks and those of the teams you own or administer (or `team`'s only)."""
    query = "?" + urlencode({"team": team}) if team else ""
    return connect().call("GET", f"/v1/webhooks{query}", expect=(200,)).json().get("webhooks", [])


def remove_webhook(webhook_id: str) -> None:
    hub = connect()
    unless_missing(lambda: hub.call("DELETE", _path(webhook_id), expect=(204,)), _missing(webhook_id))


def ping_webhook(webhook_id: str) -> dict:
    """A `webhook.ping` delivery, sent after the answer: its id and status."""
    hub = connect()
    return unless_missing(
        lambda: hub.call("POST", _path(webhook_id, "ping"), expect=(202,)), _missing(webhook_id)
    ).json()


def webhook_deliveries(webhook_id: str, limit: int | None = None) -> list[dict]:
    hub = connect()
    path = _path(webhook_id, "deliveries") + (f"?limit={limit}" if limit else "")
    answer = unless_missing(lambda: hub.call("GET", path, expect=(200,)), _missing(webhook_id))
    return answer.json().get("deliveries", [])
