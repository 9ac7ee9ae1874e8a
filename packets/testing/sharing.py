"""Helpers for the tests of sharing: share a packet, change a team's sharing setting, read an export,
all through the wire API as a person's ApiClient."""

import json

NOT_FOUND = {"error": "packet not found"}


def share(api, packet_id, to, note=None):
    """POST /v1/packets/{packet_id}/shares as `api`'s person: {"to": to} and the note if given."""
    return api.post(f"/v1/packets/{packet_id}/shares", {"to": to} if note is None else {"to": to, "note": note})


def team_settings(api, team_name, body):
    """PATCH /v1/teams/{team_name} with the JSON `body` as `api`'s person."""
    return api.client.patch(
        f"/v1/teams/{team_name}",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )


def allow_sharing_outside(api, team_name):
    response = team_settings(api, team_name, {"share_outside": True})
    assert response.status_code == 200, response.content
    assert response.json()["team"]["share_outside"] is True


def exported_ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [json.loads(line)["id"] for line in b"".join(response.streaming_content).splitlines()]
