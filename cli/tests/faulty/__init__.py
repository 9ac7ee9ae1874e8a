"""A small ltm server that breaks the rule it is told to (server.py), for the tests of the
conformance kit. Not a test module."""

from .server import FAULTS, Server, start

__all__ = ["FAULTS", "Server", "start"]
