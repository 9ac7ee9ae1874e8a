"""The ltm client: packet core (validation, canonical encoding, redaction, resume) and CLI."""

__version__ = "0.1.0"
