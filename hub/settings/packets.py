"""What the hub does with the packets people push: their public pages and the secret scan."""

from django.core.exceptions import ImproperlyConfigured

from .environment import env

# Publish pages: LTM_PUBLISH_NOINDEX=1 asks search engines not to index them (a robots meta tag
# and an X-Robots-Tag header). Off by default: a published page is meant to be shared.
LTM_PUBLISH_NOINDEX = env.bool("LTM_PUBLISH_NOINDEX", default=False)

# The hub's own secret scan of every pushed packet (packets.scan.findings): "flag" (the default) stores
# the packet and holds it back from publishing and sharing until it is fixed or cleared, "refuse"
# answers 422 and stores nothing, "off" does not scan. A team may only be stricter.
LTM_SECRET_SCAN = env("LTM_SECRET_SCAN", default="flag")
if LTM_SECRET_SCAN not in ("off", "flag", "refuse"):
    raise ImproperlyConfigured(f"LTM_SECRET_SCAN is off, flag or refuse; got {LTM_SECRET_SCAN!r}")

# Recall by meaning (packets.search: docs/search.md): "on" (the default) stores a vector of each
# packet and searches in hybrid mode unless asked otherwise; "off" turns the whole feature off:
# search is keyword search whatever the mode asked, `related` is refused, no model is loaded.
LTM_SEMANTIC = env("LTM_SEMANTIC", default="on")
if LTM_SEMANTIC not in ("on", "off"):
    raise ImproperlyConfigured(f"LTM_SEMANTIC is on or off; got {LTM_SEMANTIC!r}")
