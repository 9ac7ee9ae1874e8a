"""ltm: the command-line client of an ltm hub, and the packet protocol (`ltm.protocol`) it shares
with the hub."""

__version__ = "0.1.0"
