"""The README's quickstart, walked as it is written, on a fresh database.

The steps are read out of README.md's "## Quickstart" section, not retyped here, so a change to
the README that breaks the journey fails this test. The hub that `make run` starts on
http://127.0.0.1:8000 is pytest-django's live server (the URL is swapped wherever the README
writes it). A person in Chromium signs up on the real sign-up page; a second terminal (bash in a
temporary folder with the project's virtualenv as `.venv`, the client's config in that folder)
runs every command line of the steps; `ltm auth` is the real device flow, approved in Chromium;
the `<id>` placeholder is the id `ltm save` printed. The agent line, `claude mcp add --transport
http ltm <hub>/mcp`, is followed as Claude Code then signs in (the sequence of test_claude_code in
mcp_remote/tests/test_client_profiles.py, over real HTTP, the consent in Chromium), and the
agent's MCP session (the SDK's client) finds the packet the terminal saved.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from mcp.client.auth import PKCEParameters

from accounts.models import User
from cli.testing import text
from mcp_remote.testing import public_client, session
from packets.models import Packet

pytestmark = pytest.mark.browser

README = Path(__file__).resolve().parents[2] / "README.md"
README_HUB = "http://127.0.0.1:8000"  # where the README's `make run` starts the hub
CODE_BLOCK = re.compile(r"^ *```sh\n(.*?)^ *```", re.M | re.S)
CALLBACK = "http://localhost:54545/callback"  # Claude Code's loopback callback: Chromium's request is caught
PERSON = {"email": "quinn@example.org", "username": "quinn", "password": "a-long-and-unusual-passphrase"}


@dataclass
class Step:
    title: str
    prose: str  # the step's text without its code blocks
    commands: list[str]  # the lines of its ```sh blocks, comments and all


def quickstart(readme: str) -> tuple[Step, list[Step]]:
    """The quickstart's opening (what starts the hub) and its numbered steps."""
    found = re.search(r"^## Quickstart\n(.*?)(?=^## )", readme, re.M | re.S)
    assert found, "README.md has no '## Quickstart' section"

    def step(chunk: str) -> Step:
        title = re.match(r"\*\*(.+?)\*\*", chunk)
        lines = [line.strip() for block in CODE_BLOCK.findall(chunk) for line in block.splitlines()]
        return Step(title.group(1) if title else "", CODE_BLOCK.sub("", chunk), [line for line in lines if line])

    opening, *numbered = re.split(r"^\d+\. ", found.group(1), flags=re.M)
    return step(opening), [step(chunk) for chunk in numbered]


class Terminal:
    """The person's second terminal, in the repository: a temporary folder (packet.json lands there)
    whose `.venv` is the virtualenv `make` made, which the tests run in. Each line runs in bash and
    leaves its environment to the next (`. .venv/bin/activate`), as one shell would."""

    def __init__(self, folder: Path):
        assert sys.prefix != sys.base_prefix, "run the tests in the project's virtualenv, as `make test` does"
        (folder / ".venv").symlink_to(sys.prefix)
        self.folder = folder
        self.ltm = Path(sys.prefix) / "bin" / "ltm"  # activate names the virtualenv by its own path
        outside = [part for part in os.environ["PATH"].split(os.pathsep) if part != str(self.ltm.parent)]
        self.env = {
            "PATH": os.pathsep.join(outside),  # no virtualenv on it until the README's steps put it there
            "HOME": str(folder / "home"),
            "LANG": "C.UTF-8",
            "LTM_CONFIG_DIR": str(folder / "config"),  # cli/ltm/config.py: the token and the host
            "BROWSER": "true",  # what `ltm auth` opens; the person's Chromium is the test's
        }

    def run(self, line: str) -> str:
        """Run one line; its stdout. Fails on a non-zero exit."""
        left = self.folder / "environment"
        script = f'{line}\nstatus=$?\nenv -0 > "{left}"\nexit $status'
        done = subprocess.run(
            ["bash", "-c", script], cwd=self.folder, env=self.env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"`{line}` exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        self.env = dict(item.split("=", 1) for item in left.read_text().split("\0") if "=" in item)
        return done.stdout

    def start(self, line: str) -> subprocess.Popen:
        return subprocess.Popen(
            ["bash", "-c", line],
            cwd=self.folder,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


class Person:
    """Follows the steps: the browser parts in Chromium, the command lines in the terminal."""

    def __init__(self, hub: str, page, terminal: Terminal, artifacts_dir: Path):
        self.hub, self.page, self.terminal, self.artifacts_dir = hub, page, terminal, artifacts_dir
        self.placeholders: dict[str, str] = {}
        self.goal = None  # of the packet the terminal saved
        self.done: list[str] = []

    def filled(self, written: str) -> str:
        """A README line for this hub, with its placeholders (`<id>`) filled in."""

        def value(found):
            assert found.group(1) in self.placeholders, f"nothing the steps before gave fills {found.group(0)}"
            return self.placeholders[found.group(1)]

        return re.sub(r"<(\w+)>", value, written.replace(README_HUB, self.hub))

    def follow(self, step: Step) -> None:
        if not step.commands:
            self.sign_up(step)
        for command in map(self.filled, step.commands):  # lazily: `ltm save` gives the `<id>` of later lines
            if command.startswith("ltm auth "):
                self.sign_the_client_in(command, step)
            elif command.startswith("claude mcp add "):
                self.connect_the_agent(command)
            else:
                self.type_in(command)

    def screenshot(self, name: str) -> None:
        self.page.screenshot(path=str(self.artifacts_dir / f"quickstart-{name}.png"), full_page=True)

    def sign_up(self, step: Step) -> None:
        found = re.search(r"open (\S+) and choose \*([^*]+)\*", step.prose)
        assert found, f"a step without commands that is not the sign-up this test knows: {step.prose}"
        url, link = found.groups()
        self.page.goto(self.filled(url))
        self.page.get_by_role("link", name=link, exact=True).click()
        for field in ("email", "username"):
            self.page.fill(f"#id_{field}", PERSON[field])
        self.page.fill("#id_password1", PERSON["password"])
        self.page.fill("#id_password2", PERSON["password"])
        self.screenshot("sign-up")
        self.page.click("main button[type=submit]")
        self.page.get_by_role("button", name="Sign out").wait_for()  # signed in at once
        assert User.objects.filter(username=PERSON["username"]).exists()
        self.done.append("signed up")

    def sign_the_client_in(self, command: str, step: Step) -> None:
        """The device flow: the link and code the command prints, checked and approved in Chromium."""
        approve = re.search(r"click \*\*([^*]+)\*\*", step.prose)
        assert approve, f"the step does not say which button approves the client: {step.prose}"
        assert shutil.which("ltm", path=self.terminal.env["PATH"]) == str(self.terminal.ltm), (
            "the steps before `ltm auth` do not put the project's ltm on the PATH"
        )
        with self.terminal.start(command) as process:  # closes its pipes and waits for it
            try:
                printed, link = [], None
                for line in process.stderr:
                    printed.append(line)
                    link = re.match(r"Open (\S+) and check that it shows the same code", line)
                    if link:
                        break
                assert link, f"`{command}` printed no link to open:\n{''.join(printed)}"
                code = re.search(r"Your code: (\S+)", "".join(printed)).group(1)
                self.page.goto(link.group(1))
                assert self.page.locator(".device-code").inner_text() == code
                self.screenshot("device")
                self.page.get_by_role("button", name=approve.group(1), exact=True).click()
                self.page.wait_for_url("**/device/done/approved")
                assert process.wait(timeout=60) == 0, process.stderr.read()
                assert f"signed in to {self.hub} as {PERSON['username']}" in process.stderr.read()
            finally:
                if process.poll() is None:  # the test failed while the client polls: stop it
                    process.kill()
        self.done.append("client signed in")

    def type_in(self, command: str) -> None:
        printed = self.terminal.run(command)
        verb = command.split()[1] if command.startswith("ltm ") else None
        if verb in ("save", "push"):
            self.placeholders["id"] = printed.strip()
            packet = Packet.objects.get(id=printed.strip())
            assert (packet.owner.username, packet.team) == (PERSON["username"], None)
            self.goal = packet.goal
            self.done.append("packet saved")
        elif verb == "ls":
            assert self.placeholders["id"] in printed
        elif verb == "resume":
            assert self.goal in printed

    def connect_the_agent(self, command: str) -> None:
        words = shlex.split(command)
        assert words[words.index("--transport") + 1] == "http", command
        url = words[-1]
        assert url == self.hub + "/mcp", f"the agent is pointed elsewhere than the hub's /mcp: {command}"
        token = self.agent_signs_in(url)

        async def steps(client):
            tools = {tool.name for tool in (await client.list_tools()).tools}
            listed = json.loads(text(await client.call_tool("ls", {})))
            return tools, listed, text(await client.call_tool("resume", {"id": self.placeholders["id"]}))

        tools, listed, block = session(self.hub, token, steps)
        assert {"save", "resume", "search"} <= tools  # what the quickstart says the agent can do
        assert [packet["id"] for packet in listed] == [self.placeholders["id"]]
        assert self.goal in block
        self.done.append("agent read the packet")

    def agent_signs_in(self, url: str) -> str:
        """Claude Code after `/mcp` → Authenticate: from the 401 to the protected resource and the
        authorization server, registers itself, sends the person to the consent page (allowed in
        Chromium) and exchanges the code with PKCE, without `resource`. Returns the access token."""
        refused = httpx2.post(url, json={}, headers={"Accept": "application/json, text/event-stream"})
        assert refused.status_code == 401
        pointer = re.search(r'resource_metadata="([^"]+)"', refused.headers["WWW-Authenticate"]).group(1)
        resource = httpx2.get(pointer).json()
        assert resource["resource"] == url
        (issuer,) = resource["authorization_servers"]
        server = httpx2.get(issuer.rstrip("/") + "/.well-known/oauth-authorization-server").json()
        registered = httpx2.post(server["registration_endpoint"], json=public_client("Claude Code", [CALLBACK]))
        assert registered.status_code == 201, registered.text
        client_id = registered.json()["client_id"]
        pkce = PKCEParameters.generate()
        answer = self.consent(
            server["authorization_endpoint"]
            + "?"
            + urlencode(
                {
                    "response_type": "code",
                    "client_id": client_id,
                    "redirect_uri": CALLBACK,
                    "state": "quickstart",
                    "code_challenge": pkce.code_challenge,
                    "code_challenge_method": "S256",
                }
            )
        )
        assert (answer["state"], answer["iss"]) == ("quickstart", issuer)
        tokens = httpx2.post(
            server["token_endpoint"],
            data={
                "grant_type": "authorization_code",
                "client_id": client_id,
                "code": answer["code"],
                "redirect_uri": CALLBACK,
                "code_verifier": pkce.code_verifier,
            },
        )
        assert tokens.status_code == 200, tokens.text
        return tokens.json()["access_token"]

    def consent(self, authorization_url: str) -> dict:
        """The person, signed in already, allows "Claude Code" on the consent page: the query of the
        redirect to the agent's callback."""
        caught = []

        def catch(route):
            caught.append(route.request.url)
            route.fulfill(status=200, body="You can close this window.")

        self.page.route(CALLBACK + "**", catch)
        self.page.goto(authorization_url)
        assert "Claude Code" in self.page.inner_text("main")
        self.screenshot("consent")
        self.page.get_by_role("button", name="Allow", exact=True).click()
        self.page.wait_for_function("() => document.body.innerText.includes('You can close this window.')")
        return {name: values[0] for name, values in parse_qs(urlsplit(caught[0]).query).items()}


def test_the_readme_quickstart_as_written(live_server, page, tmp_path, artifacts_dir):
    opening, steps = quickstart(README.read_text())
    assert opening.commands == ["make run"], "the quickstart starts the hub with something else than `make run`"
    assert f"starts the hub on {README_HUB}" in " ".join(opening.prose.split())
    assert "`make run PORT=8080`" in opening.prose, "the quickstart no longer says how to pick another port"
    assert not User.objects.exists()  # a fresh database

    person = Person(live_server.url, page, Terminal(tmp_path), artifacts_dir)
    for step in steps:
        person.follow(step)

    assert person.done == ["signed up", "client signed in", "packet saved", "agent read the packet"]
