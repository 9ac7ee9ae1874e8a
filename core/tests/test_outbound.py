"""The outbound guard (core.outbound): which addresses it refuses, and that it connects to the
address it checked, follows no redirect and reads a bounded answer."""

import socket
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

import pytest

from core import outbound
from core.testing import serving_on_loopback

LOOPBACK = ("127.0.0.0/8", "::1")


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("100.64.0.1", "not a public address"),
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 of 169.254.169.254
        ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
    ],
)
def test_non_public_addresses_are_refused(address, said):
    assert said in outbound.address_problem(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:93.184.216.34"])
def test_public_addresses_pass(address):
    assert outbound.address_problem(address) is None


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("file:///etc/passwd", "http:// or https://"),
        ("gopher://127.0.0.1/", "http:// or https://"),
        ("http:///path", "no host"),
        ("http://a:b@example.org/", "user name or password"),
        ("http://example.org:99999/", "not valid"),
    ],
)
def test_urls_the_guard_refuses_before_any_lookup(url, said):
    with pytest.raises(outbound.Refused, match=said):
        outbound.check(url)


def test_an_ipv4_mapped_ipv6_literal_is_refused_unless_listed():
    with pytest.raises(outbound.Refused, match="loopback"):
        outbound.check("http://[::ffff:127.0.0.1]:8000/")
    assert outbound.check("http://[::ffff:127.0.0.1]:8000/", allow_hosts=("::ffff:127.0.0.1",)).port == 8000


def test_a_host_is_refused_when_any_of_its_addresses_is(monkeypatch):
    _resolving(monkeypatch, {"mixed.example.test": ["93.184.216.34", "10.0.0.5"]})

    with pytest.raises(outbound.Refused, match="10.0.0.5"):
        outbound.check("https://mixed.example.test/")
    assert outbound.check("https://mixed.example.test/", allow_hosts=("mixed.example.test",)).addresses == (
        "93.184.216.34",
        "10.0.0.5",
    )


def test_only_listed_hosts_without_a_lookup(monkeypatch):
    looked_up = _resolving(monkeypatch, {})

    with pytest.raises(outbound.Refused, match="only the hosts its operator lists"):
        outbound.check("https://example.org/", only_listed=True)
    assert looked_up == []


def test_the_call_goes_to_the_address_checked_not_to_a_second_lookup(monkeypatch):
    """The name resolves once: to loopback (allowed here) when checked, to somewhere else after.
    The call reaches the first address, and the Host header still names the host."""
    with _server() as server:
        looked_up = _resolving(monkeypatch, {"hooks.example.test": ["127.0.0.1"], "then": ["10.9.9.9"]})
        answer = outbound.post(
            f"http://hooks.example.test:{server.port}/in?x=1",
            body=b"{}",
            headers={"X-Test": "1"},
            timeout=5,
            max_response_bytes=10,
            allow_hosts=LOOPBACK,
        )

    assert looked_up == ["hooks.example.test"]
    assert answer.status == 302 and answer.body == b"0123456789"  # bounded, and the redirect not followed
    assert server.requests == [("/in?x=1", f"hooks.example.test:{server.port}", b"{}")]


def test_no_answer_in_time_is_a_failure():
    with _server(delay=2) as server, pytest.raises(outbound.Failed, match="no answer within 0.3 s"):
        outbound.post(
            f"http://127.0.0.1:{server.port}/",
            body=b"",
            headers={},
            timeout=0.3,
            max_response_bytes=10,
            allow_hosts=LOOPBACK,
        )


def _resolving(monkeypatch, names: dict) -> list:
    """Replace the resolver: `names` to their addresses, any other name unresolvable; the names
    looked up, in order."""
    looked_up = []
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host.replace(".", "").isdigit() or ":" in host:
            return real(host, port, *args, **kwargs)  # an address (the connection's own lookup)
        looked_up.append(host)
        if host not in names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in names[host]
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


class _Redirecting(BaseHTTPRequestHandler):
    """Records each POST (in the server's `requests`) and answers a redirect with a long body,
    after the server's `delay`."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests.append((self.path, self.headers["Host"], body))
        threading.Event().wait(self.server.delay)
        try:
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:1/elsewhere")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"0123456789" * 10000)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the hub read what it keeps and hung up, as it should

    def log_message(self, *args):
        pass


@contextmanager
def _server(delay: float = 0):
    with serving_on_loopback(_Redirecting) as server:
        server.requests, server.delay = [], delay
        server.port = server.server_address[1]
        yield server
