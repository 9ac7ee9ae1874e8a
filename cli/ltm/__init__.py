"""ltm: the command-line client of an ltm hub, and the packet protocol (`ltm.protocol`) it shares
with the hub."""

# The hub's version too (hub/__init__.py): the hub and its client are released together, and
# `ltm --version` prints it.
__version__ = "0.9.0"
