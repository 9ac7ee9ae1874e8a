"""The client's error family: one base, so every failure is reported the same way."""

import pytest

from ltm import errors
from ltm.errors import ConfigError, HubRequestError, IdTaken, LtmError, PacketRejected, RedactionRefused, UsageError
from ltm.main import main
from ltm.protocol.redact import Finding


@pytest.mark.parametrize("error_type", [UsageError, ConfigError, HubRequestError, PacketRejected])
def test_every_client_error_is_an_ltm_error(error_type):
    assert issubclass(error_type, LtmError)


def test_the_name_hub_error_is_left_to_the_hub():
    assert not hasattr(errors, "HubError")


def test_report_lists_the_details_under_the_message():
    error = LtmError("packet rejected", ["$.goal: is too short", "$.tags[0]: bad"])
    assert error.report() == "packet rejected\n  - $.goal: is too short\n  - $.tags[0]: bad"


def test_report_without_details_is_the_message():
    assert HubRequestError("token rejected", 401).report() == "token rejected"


def test_a_hub_request_error_keeps_the_http_status():
    assert HubRequestError("gone", 404).status == 404
    assert HubRequestError("cannot reach the hub").status is None


def test_redaction_refused_lists_each_finding():
    refused = RedactionRefused([Finding("goal", "aws-key", "AKIAIOSFODNN7EXAMPLE")])
    assert refused.details == ["goal: aws-key (AKIA…)"]
    assert "--allow-unredacted" in str(refused)


def test_id_taken_names_the_id_and_the_way_out():
    taken = IdTaken("https://hub.example.com", "01HV0000000000000000000000")
    assert taken.packet_id == "01HV0000000000000000000000"
    assert "01HV0000000000000000000000 is already taken on https://hub.example.com" in str(taken)
    assert "`ltm example`" in str(taken)


@pytest.mark.parametrize(
    "error, code",
    [
        (UsageError("bad"), 2),
        (LtmError("failed", ["why"]), 1),
        (ConfigError("wrong key"), 1),
        (HubRequestError("down", 503), 1),
    ],
)
def test_main_turns_each_error_into_its_exit_code_and_a_note(monkeypatch, capsys, error, code):
    def fail(args):
        raise error

    monkeypatch.setattr("ltm.commands.packets.cmd_example", fail)
    assert main(["example"]) == code
    assert capsys.readouterr().err == f"ltm: {error.report()}\n"
