"""What every part of the faulty server shares: its accounts, its rules on names and secrets, and
the refusal a handler raises."""

import re

TOKENS = {"tok-alice": "alice", "tok-bob": "bob"}
TEAM_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
AWS_KEY = re.compile(r"AKIA[A-Z0-9]{16}")  # the one kind of secret this server's scan knows
REFUSED = "the packet looks like it carries secrets"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class Fail(Exception):
    def __init__(self, status, message, **extra):
        self.status, self.message, self.extra = status, message, extra
