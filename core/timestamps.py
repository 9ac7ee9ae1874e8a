"""Instants as the wire carries them."""


def rfc3339(moment) -> str:
    """A timestamp as the wire carries it: ISO 8601, UTC written `Z`."""
    return moment.isoformat().replace("+00:00", "Z")


def rfc3339_column(column: str, vendor: str) -> str:
    """SQL that selects the instant `column` as the text rfc3339() makes of it, for a query that
    reads many instants: the database writes them, and no Python runs per instant.

    SQLite keeps an instant as the text of its naive UTC value ("2026-11-26 06:50:30.123456",
    what Django's SQLite backend writes), one replace away. PostgreSQL writes its UTC value with
    all six digits of the fraction, which isoformat() leaves out when they are all zero."""
    if vendor == "sqlite":
        return f"replace({column}, ' ', 'T') || 'Z'"
    return f"replace(to_char(({column} AT TIME ZONE 'UTC'), 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), '.000000Z', 'Z')"
