"""The `save` tool on /mcp under the hub's secret scan: a flagged packet is saved and the answer
names its findings and the way out; a refused one is not saved and the tool error names them."""

import json

from ltm.protocol import tools as specs
from ltm.protocol.packet import example_packet
from mcp_remote.testing import call
from packets.models import Packet

# A GitLab token: the client's pre-flight does not know the kind, the hub's scan does.
LEAKY = {**example_packet(), "next_step": "clone with glpat-Xq7vR2mK9pL4sT8wZ3nB and run the suite"}
FOUND = [{"path": "next_step", "kind": "gitlab-token"}]


def test_a_flagged_save_is_stored_quarantined_and_the_answer_says_how_to_fix_it(alice, make_token):
    token = make_token(alice)
    text, is_error = call(token, "save", {"packet": LEAKY})
    assert not is_error, text
    saved, warning = text.split("\n", 1)
    assert saved.startswith(f"saved packet {LEAKY['id']} on http://testserver.")
    assert warning == specs.flagged_message(LEAKY["id"], FOUND)
    stored = Packet.objects.get(pk=LEAKY["id"])
    assert stored.quarantined and stored.findings == FOUND
    assert json.loads(stored.body) == LEAKY  # never altered

    text, is_error = call(token, "publish", {"id": LEAKY["id"]})
    assert is_error and "cannot be published" in text and "next_step (gitlab-token)" in text

    clean = {**LEAKY, "next_step": "clone with the CI token from the vault and run the suite"}
    text, is_error = call(token, "save", {"packet": clean})
    assert not is_error and "\n" not in text  # no warning: the re-push ended the quarantine
    assert not Packet.objects.get(pk=LEAKY["id"]).quarantined


def test_a_refused_save_stores_nothing_and_names_the_findings(alice, make_token, settings):
    settings.LTM_SECRET_SCAN = "refuse"
    text, is_error = call(make_token(alice), "save", {"packet": LEAKY, "allow_unredacted": True})
    assert is_error
    assert text == specs.secrets_refused_message(FOUND)
    assert not Packet.objects.exists()


def test_a_clean_save_says_nothing_of_the_scan(alice, make_token):
    text, is_error = call(make_token(alice), "save", {"packet": example_packet()})
    assert not is_error
    assert (
        text
        == f"saved packet {example_packet()['id']} on http://testserver. Resume it with the `resume` tool, id {example_packet()['id']!r}."
    )
