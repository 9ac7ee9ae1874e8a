"""The consent page tells the person where their browser goes back to, and calls it "an app on
this computer" only when it really is: a loopback address, or an app's own URI scheme, whose
host it shows too."""

import pytest

from core.testing import signed_in
from oauth.testing import authorize_query, pkce, register

LOCAL = "That is an app on this computer."


@pytest.mark.parametrize(
    ("redirect_uri", "shown", "local"),
    [
        ("http://127.0.0.1:47123/callback", "127.0.0.1:47123", True),
        ("http://127.9.8.7/callback", "127.9.8.7", True),
        ("http://[::1]:5000/cb", "[::1]:5000", True),
        ("http://localhost:8080/cb", "localhost:8080", True),
        ("https://127.0.0.1.evil.example/cb", "127.0.0.1.evil.example", False),
        ("https://localhost.evil.example/cb", "localhost.evil.example", False),
        ("https://evil.example/127.0.0.1/cb", "evil.example", False),
        ("https://agent.example/cb", "agent.example", False),
        ("cursor://anysphere.cursor-mcp/oauth/callback", "cursor://anysphere.cursor-mcp", True),
        ("com.example.app://sub.example.com/cb", "com.example.app://sub.example.com", True),
        ("com.example.app:/oauth2redirect", "com.example.app:", True),
    ],
)
def test_only_a_real_loopback_address_is_called_this_computer(alice, redirect_uri, shown, local):
    client_id = register(redirect_uris=[redirect_uri]).json()["client_id"]
    _, challenge = pkce()
    page = signed_in(alice).get(authorize_query(client_id, challenge, redirect_uri=redirect_uri))
    assert page.status_code == 200, page.content
    text = page.content.decode()
    assert f'<strong class="redirect-host">{shown}</strong>' in text
    assert (LOCAL in text) is local
