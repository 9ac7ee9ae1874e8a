"""`ltm platform` (alias `dashboard`): the hub's web dashboard."""

from __future__ import annotations

from .. import verbs
from ..device import open_browser


def register(add) -> None:
    add("platform", cmd_platform, "open the hub's dashboard in the browser", aliases=["dashboard"])


def cmd_platform(args) -> int:
    url = verbs.dashboard_url()
    print(url)
    open_browser(url)  # no browser on this machine: the printed URL is enough
    return 0
