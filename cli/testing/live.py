"""The real hub for the CLI's tests: pytest-django's live server on the suite's database, people
with API tokens, the client's config folder signed in as one of them, and every request the client
sends, recorded on its side (a test asserts what went on the wire, the hub answers it).

Not a test module: conftest.py builds its fixtures from it. Where the hub's Django project cannot
be imported (the client's folder on its own), the tests that need the hub skip and say why; the
client's own tests still run.
"""

from __future__ import annotations

import os
import urllib.request
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

PASSWORD = "correct-horse-battery"


def hub_missing() -> str | None:
    """Why the hub cannot run here (no Django project importable), or None. In CI the hub is
    always there: a failing import is a bug, not a reason to skip."""
    try:
        import django
        from django.conf import settings

        settings.INSTALLED_APPS  # noqa: B018 - raises when DJANGO_SETTINGS_MODULE is not set
        django.setup()
    except Exception as exc:  # ImportError, ImproperlyConfigured: no Django project here
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            raise
        return (
            f"the hub's Django project is not importable ({exc.__class__.__name__}: {exc}); "
            "run from the repository root: python -m pytest cli/tests"
        )
    return None


@dataclass
class Sent:
    """One request as the client sent it."""

    method: str
    path: str  # the path and the query, as on the request line
    headers: dict  # names as on the wire: Authorization, Content-Type
    body: bytes


class LiveHub:
    """The live hub at `url`; `folder` is alice's config folder, the others' are beside it."""

    def __init__(self, url: str, folder, monkeypatch):
        self.url = url
        self.folder = folder
        self.monkeypatch = monkeypatch
        self.sent: list[Sent] = []
        self.people: dict[str, tuple] = {}
        monkeypatch.setenv("LTM_HUB_URL", url)
        real = urllib.request.urlopen

        def recording(request, *args, **kwargs):
            if isinstance(request, urllib.request.Request):
                parts = urlsplit(request.full_url)
                headers = {"-".join(w.capitalize() for w in k.split("-")): v for k, v in request.header_items()}
                path = parts.path + (f"?{parts.query}" if parts.query else "")
                self.sent.append(Sent(request.get_method(), path, headers, request.data or b""))
            return real(request, *args, **kwargs)

        monkeypatch.setattr(urllib.request, "urlopen", recording)

    def person(self, username: str):
        """(user, token): an account with a password (as if made on the web) and a personal API
        token named laptop, made on first use."""
        if username not in self.people:
            from accounts.services import api_token_create, user_upsert

            user, _ = user_upsert(username=username, password=PASSWORD)
            self.people[username] = (user, api_token_create(actor=user, name="laptop")[1])
        return self.people[username]

    def token(self, username: str = "alice") -> str:
        return self.person(username)[1]

    def folder_of(self, username: str):
        return self.folder if username == "alice" else self.folder.with_name(f"{self.folder.name}-{username}")

    def as_user(self, username: str):
        """From now on the client runs as `username`, from a config folder of their own that holds
        their token (written the first time). The user."""
        user, token = self.person(username)
        folder = self.folder_of(username)
        if not folder.exists():
            folder.mkdir(mode=0o700)
            (folder / "credentials").write_text(token + "\n")
        self.monkeypatch.setenv("LTM_CONFIG_DIR", str(folder))
        return user

    def last(self, method: str, prefix: str) -> Sent:
        """The last request of `method` whose path starts with `prefix`."""
        matches = [r for r in self.sent if r.method == method and r.path.startswith(prefix)]
        assert matches, f"no {method} {prefix} request was sent"
        return matches[-1]


class HubClock:
    """The device flow's clock and sleep, without the waiting. Each sleep moves the clock of every
    pending grant on the hub as far (oauth.testing.let_interval_pass), so that the hub sees the time
    pass as the client does; `during_sleep(clock)`, when set, acts while the client waits (a person
    approving, a code expiring)."""

    def __init__(self, hub_keeps_time: bool = True):
        self.now = 0.0
        self.slept: list[float] = []
        self.hub_keeps_time = hub_keeps_time
        self.during_sleep = None

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        if self.hub_keeps_time:
            from django.db.models import F
            from oauth2_provider.models import get_device_grant_model

            step = timedelta(seconds=seconds)
            get_device_grant_model().objects.update(last_checked=F("last_checked") - step)
        if self.during_sleep:
            self.during_sleep(self)

    @staticmethod
    def grant():
        """The one device grant the flow started."""
        from oauth2_provider.models import get_device_grant_model

        return get_device_grant_model().objects.get()


class InstantTime(HubClock):
    """A device-flow clock that never waits and leaves the hub's clock alone (the browser tests
    approve the code before the first poll)."""

    def __init__(self):
        super().__init__(hub_keeps_time=False)
