"""`ltm webhooks` (add, ls, ping, deliveries, rm) against the real hub, with a receiver on loopback
that verifies each call as any Standard Webhooks receiver does."""

import json

from cli.testing.command_line import out_of, run
from webhooks.testing import Receiver


def test_add_ping_list_and_remove(hub, capsys):
    with Receiver() as receiver:
        added = run(capsys, ["webhooks", "add", receiver.url, "--event", "packet.created", "--event", "packet.deleted"])
        secret = added.out.strip()
        assert secret.startswith("whsec_") and "shown only this once" in added.err
        [webhook] = json.loads(out_of(capsys, ["webhooks", "ls", "--json"]))["webhooks"]
        assert webhook["events"] == ["packet.created", "packet.deleted"] and "secret" not in webhook
        assert webhook["id"] in out_of(capsys, ["webhooks", "ls"]) and "(personal)" in out_of(capsys, ["webhooks"])

        assert "ping queued as delivery msg_" in run(capsys, ["webhooks", "ping", webhook["id"]]).err
        [call] = receiver.wait_for(1)

    assert call.verified(secret)["type"] == "webhook.ping"
    [delivery] = json.loads(out_of(capsys, ["webhooks", "deliveries", webhook["id"], "--json"]))["deliveries"]
    assert delivery["id"] == call.headers["webhook-id"] and delivery["status"] == "delivered"
    assert "delivered" in out_of(capsys, ["webhooks", "deliveries", webhook["id"], "--limit", "5"])
    assert run(capsys, ["webhooks", "rm", webhook["id"]]).err == f"ltm: removed webhook {webhook['id']}\n"
    assert "no webhooks yet" in run(capsys, ["webhooks", "ls"]).err
    assert f"webhook {webhook['id']} not found" in run(capsys, ["webhooks", "ping", webhook["id"]], code=1).err


def test_a_teams_slack_webhook_and_the_hubs_refusals(hub, capsys):
    out_of(capsys, ["teams", "create", "core"])
    added = run(
        capsys,
        ["webhooks", "add", "http://127.0.0.1:9/x", "--event", "member.joined", "-t", "core", "--format", "slack"],
    )
    [webhook] = json.loads(out_of(capsys, ["webhooks", "ls", "-t", "core", "--json"]))["webhooks"]
    assert added.out.strip().startswith("whsec_") and webhook["team"] == "core" and webhook["format"] == "slack"

    refused = run(capsys, ["webhooks", "add", "http://10.0.0.1/x", "--event", "packet.created"], code=1)
    assert "private address" in refused.err
    assert run(capsys, ["webhooks", "add", "http://127.0.0.1:9/", "--event", "packet.eaten"], code=2).err
