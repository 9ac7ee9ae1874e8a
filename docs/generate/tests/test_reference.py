"""The generated reference pages (docs/reference/cli.md, mcp-tools.md, api-operations.md) are what
the code gives: a command, a tool or an endpoint changed without `make reference` fails here."""

import argparse

import pytest

from generate import reference
from ltm.main import build_parser
from ltm.protocol import tools


@pytest.mark.parametrize("name", sorted(reference.PAGES))
def test_the_committed_page_is_what_the_code_gives(name):
    committed = (reference.DOCS / name).read_text("utf-8")
    assert committed == reference.PAGES[name](), f"docs/{name} differs from the code: run `make reference`"


def _commands(parser, prefix="ltm"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield f"{prefix} {choice.dest}"
                yield from _commands(action.choices[choice.dest], f"{prefix} {choice.dest}")


def test_every_command_and_option_of_the_parser_has_its_heading_and_row():
    page = reference.cli_page()
    commands = list(_commands(build_parser()))
    assert {"ltm save", "ltm teams role", "ltm account claim"} <= set(commands)
    for command in commands:
        assert f"# `{command}`\n" in page, command
    assert "| `-t`, `--team` | push into this team instead of your personal packets |" in page
    assert "| `--format` | jsonl (default)" in page and "one of `jsonl`, `markdown`; default `jsonl` |" in page


def test_every_tool_is_listed_with_its_scope_and_arguments():
    page = reference.mcp_tools_page()
    for spec in [*tools.TOOLS.values(), *tools.LOCAL_TOOLS.values()]:
        section = page.split(f"### `{spec.name}`\n", 1)[1].split("\n### ", 1)[0]
        assert f"Scope: `{spec.scope}`." in section, spec.name
        for argument in spec.properties:
            assert f"| `{argument}` |" in section, (spec.name, argument)
    # Only ltm mcp serves the local tools.
    local = page.split("## Only in `ltm mcp`", 1)[1]
    assert set(tools.LOCAL_TOOLS) == {name for name in tools.LOCAL_TOOLS if f"### `{name}`" in local}


def test_the_api_page_lists_each_operation_with_its_statuses():
    document = {
        "paths": {
            "/v1/things/{id}": {
                "get": {
                    "tags": ["things"],
                    "summary": "Get a <thing> | or two",
                    "security": [{"apiToken": []}],
                    "responses": {"200": {}, "404": {}, "400": {}, "503": {}},
                },
                "parameters": [],
            },
            "/v1/open": {"post": {"tags": ["things"], "summary": "Open", "security": [{}], "responses": {"201": {}}}},
        }
    }
    page = reference.api_page(document)
    assert "## Things\n" in page
    assert "| `GET /v1/things/{id}` | Get a \\<thing\\> \\| or two | bearer | 200 | 404 |" in page
    assert "| `POST /v1/open` | Open | none | 201 |  |" in page


def test_the_api_page_covers_every_operation_of_the_openapi_description(db):
    document = reference.openapi_document()
    page = reference.api_page(document)
    for path, operations in document["paths"].items():
        for method in reference.METHODS:
            if method in operations:
                assert f"| `{method.upper()} {path}` |" in page, (method, path)
