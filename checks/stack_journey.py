"""The stack check's first steps (checks/stack_check.py): the journey a stranger takes through the
stack. Token auth, push, list, pull, publish, the web server's and the proxy's limits, a tool call
on the MCP endpoint, a device-flow sign-in approved in Chromium, a team invite accepted
anonymously, `ltm conformance`, and the state the two web processes share. A mixin of its Journey,
which holds the stack, alice's client (`api`), the packet she pushed and the two web processes'
URLs (`a`, `b`)."""

import json
import random
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import slow_clients
from stack import ROOT
from stack_http import PASSWORD, USER_CODE_LETTERS, Http, check, csrf, new_packet, poll_for_token, start_device_flow

from ltm.conformance.vectors import known_deviations

CONFORMANCE_FUZZ = 2000  # hostile requests of the conformance step


class FirstSteps:
    api = None  # Http with alice's personal token
    packet = None  # the packet alice pushed

    def token_auth(self):
        with ThreadPoolExecutor() as pool:  # three Django start-ups at once
            list(
                pool.map(
                    lambda name: self.stack.manage("ltm_user", name, "--password", PASSWORD), ("alice", "bob", "carol")
                )
            )
        self.api = Http(self.stack.manage("ltm_token", "alice", "--name", "stack-check"))
        self.api.expect(200, "GET", self.a + "/v1/packets?limit=1")
        Http(token="ltm_not-a-token").expect(401, "GET", self.a + "/v1/packets?limit=1")
        return "ltm_user + ltm_token; a wrong token gets 401"

    def push_list_pull(self):
        self.packet = new_packet()
        check(
            self.api.expect(201, "POST", self.a + "/v1/packets", body=self.packet) == {"id": self.packet["id"]},
            "push answered another id",
        )
        listed = self.api.expect(200, "GET", self.b + "/v1/packets?limit=5")["packets"]
        check([p["id"] for p in listed] == [self.packet["id"]], f"list: {listed}")
        pulled = self.api.expect(200, "GET", self.a + f"/v1/packets/{self.packet['id']}")
        check(pulled["goal"] == self.packet["goal"] and pulled["next_step"] == self.packet["next_step"], "pull")
        return "pushed on web.1, listed on web.2, pulled on web.1"

    def publish(self):
        published = self.api.expect(200, "POST", self.a + f"/v1/packets/{self.packet['id']}/publish")
        page = Http().expect(200, "GET", published["public_url"])
        check(self.packet["goal"] in page, "the public page does not show the goal")
        check(Http().expect(200, "GET", published["public_url"] + ".json")["id"] == self.packet["id"], "page .json")
        return published["public_url"]

    def server_limits(self):
        """What granian refuses before the hub sees it answers with the statuses the OpenAPI
        description lists on every operation (core/openapi.py)."""
        documented = Http().expect(200, "GET", self.a + "/v1/openapi.json")["paths"]["/v1/packets"]["get"]["responses"]
        status, _ = self.api.call("GET", self.a + "/v1/packets?limit=" + "9" * 70_000)
        check(status == 414 and "414" in documented, f"a 70,000-byte query answered {status}")
        request = urllib.request.Request(self.a + "/v1/healthz", headers={f"X-Pad-{n}": "x" for n in range(120)})
        try:
            urllib.request.urlopen(request, timeout=15).close()
            status = 200
        except urllib.error.HTTPError as error:
            status = error.code
        check(status == 431 and "431" in documented, f"120 extra headers answered {status}")
        return "a 70,000-byte query: 414; 120 extra headers: 431; both described"

    def proxy_in_front(self):
        """The production shape: nginx in front of both web processes, which hands them only whole
        requests. Slow senders, more than the stack has web workers, each declare a body and stall:
        /v1/healthz still answers at once, and the proxy lets each go within its client timeout."""
        proxy = self.stack.proxy_url
        pulled = self.api.expect(200, "GET", proxy + f"/v1/packets/{self.packet['id']}")
        check(pulled["id"] == self.packet["id"], "a pull through the proxy read another packet")
        status, text = self.api.call("POST", proxy + "/v1/packets", body={"pad": "x" * 2_000_000})
        check(status == 413 and "maximum" in text, f"a 2 MB body through the proxy answered {status}: {text[:200]}")
        from proxy import settings

        timeout = int(settings(self.stack.env)["CLIENT_TIMEOUT"].rstrip("s"))  # its default: the stack sets none
        workers = self.stack.web_processes * int(self.stack.env["WEB_CONCURRENCY"])
        held = slow_clients.hold(proxy, workers + 3, ends_within=timeout + 3, token=self.api.token)
        check(held.health is not None, f"/v1/healthz waited over 2 s behind {workers + 3} slow senders")
        late = [end for end in held.ends if not end or end[1] not in ("408", "closed") or end[0] > timeout + 1]
        check(not late, f"slow senders the proxy did not let go within {timeout} s: {held.ends}")
        slowest = max(end[0] for end in held.ends)
        return (
            f"a pull; 2 MB: 413; {workers + 3} slow senders ({workers} workers): healthz in "
            f"{held.health:.2f}s, all let go within {slowest:.1f}s"
        )

    def mcp_tool_call(self):
        """The hub's MCP endpoint on web.2, served by the same WSGI worker as /v1."""

        def post(token):
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "ls", "arguments": {"limit": 5}},
            }
            headers = {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            }
            if token:
                headers["Authorization"] = f"Bearer {token}"
            request = urllib.request.Request(self.b + "/mcp", data=json.dumps(body).encode(), headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=15) as response:
                    # the headers themselves, whose names match in any case: granian sends them lowercase
                    return response.status, response.headers, json.loads(response.read())
            except urllib.error.HTTPError as error:
                return error.code, error.headers, error.read().decode("utf-8", "replace")

        status, headers, answer = post(None)
        check(
            status == 401 and "resource_metadata=" in headers.get("WWW-Authenticate", ""),
            f"POST /mcp without a token answered {status} {headers.get('WWW-Authenticate')}",
        )
        status, _, answer = post(self.api.token)
        check(status == 200, f"POST /mcp answered {status}: {str(answer)[:300]}")
        result = answer["result"]
        check(not result.get("isError") and self.packet["id"] in result["content"][0]["text"], f"ls tool: {result}")
        return "tools/call ls on web.2 lists the packet; no token: 401 with resource_metadata"

    def device_flow_in_chromium(self):
        from chromium import CHROMIUM_FLAGS, chromium_path
        from playwright.sync_api import sync_playwright

        executable = chromium_path()
        check(executable, "Chromium not found (install it, or set LTM_CHROMIUM)")
        grant = start_device_flow(self.a)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page()
                page.set_default_timeout(15_000)
                page.goto(grant["verification_uri_complete"])
                page.fill("#id_login", "alice")
                page.fill("#id_password", PASSWORD)
                page.click("button[type=submit]")
                shown = page.locator(".device-code").inner_text()
                check(shown.replace("-", "") == grant["user_code"], f"the page shows {shown}")
                page.click("button[value=approve]")
                page.wait_for_url("**/device/done/approved")
            finally:
                browser.close()
        device = Http(poll_for_token(self.a, grant))
        check(
            device.expect(200, "GET", self.b + "/v1/packets?limit=1")["packets"][0]["id"] == self.packet["id"],
            "the device token does not list alice's packet",
        )
        return "signed in, code compared, approved in Chromium; the polled token reads"

    def team_invite(self):
        self.api.expect(201, "POST", self.a + "/v1/teams", body={"name": "stack-check"})
        team_packet = new_packet("team work")
        self.api.expect(201, "POST", self.a + "/v1/packets?team=stack-check", body=team_packet)
        invite = self.api.expect(201, "POST", self.a + "/v1/teams/stack-check/invites", body={})
        joined = Http().expect(201, "POST", invite["url"] + "/accept", body={"display": "Dana"})
        newcomer = Http(joined["token"])
        listed = newcomer.expect(200, "GET", self.b + "/v1/packets?team=stack-check")["packets"]
        check([p["id"] for p in listed] == [team_packet["id"]], f"the new member lists {listed}")
        Http().expect(410, "POST", invite["url"] + "/accept", body={})
        return "anonymous accept made an account and a token; the code works once"

    def conformance(self):
        """`ltm conformance` with alice's token and one of bob's, and 2,000 hostile requests: every
        check passes but those only a person at a browser can make happen, those of a secret
        scan that refuses (the stack flags, the hub's default), and the hub's known deviations
        (ltm/conformance/known_deviations/hub.json), which fail."""
        bob = self.stack.manage("ltm_token", "bob", "--name", "conformance")
        report = self.stack.log_dir / "conformance.json"
        command = [sys.executable, "-m", "ltm", "conformance", self.a, "--token", self.api.token, "--token2", bob]
        command += ["--fuzz", str(CONFORMANCE_FUZZ), "--format", "json", "-o", str(report)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
        lines = done.stdout.strip().splitlines()
        checks = json.loads(report.read_text())["checks"] if report.exists() else []
        failed = {(c["group"], c["name"]) for c in checks if c["outcome"] == "fail"}
        ran = done.returncode == (1 if failed else 0) and failed == set(known_deviations("hub"))
        # What went wrong first: a CI log keeps only so much of a long message.
        unexpected = [
            c for c in checks if c["outcome"] == "fail" and (c["group"], c["name"]) not in known_deviations("hub")
        ]
        problem = [
            f"exit code {done.returncode}" + ("" if report.exists() else ", no report written"),
            *(f"FAIL {c['group']}: {c['name']}\n{c.get('detail', '')[:1500]}" for c in unexpected),
            done.stderr[-2000:],
            *lines[-10:],
        ]
        check(ran, "\n".join(problem))
        skipped = {c["name"]: c["detail"] for c in checks if c["outcome"] == "skip"}
        expected = ("needs a person", "waiting out", "does not offer a secret scan that refuses")
        check(all(any(reason in why for reason in expected) for why in skipped.values()), f"skipped: {skipped}")
        seed = next(line for line in lines if line.startswith("fuzz:")).split("(")[0]
        return f"{lines[-1]}; {seed.strip()}"

    def two_web_processes(self):
        # A device code minted on web.1, approved on web.2 with a session signed in on web.1,
        # polled on web.2.
        grant = start_device_flow(self.a)
        person = Http()
        person.sign_in(self.a, "bob")
        page = person.expect(200, "GET", self.b + "/device?user_code=" + grant["user_code"])
        person.expect(
            302,
            "POST",
            self.b + "/device/decide",
            form={"csrfmiddlewaretoken": csrf(page), "user_code": grant["user_code"], "action": "approve"},
        )
        Http(poll_for_token(self.b, grant)).expect(200, "GET", self.a + "/v1/packets")
        # Wrong codes, alternating: 5 on each process, 10 in all, the per-account limit. Only a
        # count shared through Redis refuses the next entry, on either process.
        guesser = Http()
        guesser.sign_in(self.b, "carol")
        for attempt in range(10):
            code = "".join(random.choices(USER_CODE_LETTERS, k=8))
            status, _ = guesser.call("GET", (self.a, self.b)[attempt % 2] + "/device?user_code=" + code)
            check(status == 400, f"wrong code {attempt + 1} answered {status}")
        for base in (self.a, self.b):
            status, _ = guesser.call("GET", base + "/device?user_code=BCDFGHJK")
            check(status == 429, f"the 11th wrong code answered {status} on {base}")
        return "code minted on web.1, polled on web.2; session from web.1 used on web.2; 10 wrong codes (5+5) -> 429 on both"
