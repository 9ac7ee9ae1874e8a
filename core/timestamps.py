"""Instants as the wire carries them."""


def rfc3339(moment) -> str:
    """A timestamp as the wire carries it: ISO 8601, UTC written `Z`."""
    return moment.isoformat().replace("+00:00", "Z")


def _utc_text(naive_utc) -> str:
    return naive_utc.isoformat() + "Z"


def rfc3339_column(column: str, vendor: str):
    """(sql, read) for a query that reads many instants: `sql` selects `column` in the form the
    database hands over cheapest, and read(value) makes rfc3339()'s text of what it hands back.

    SQLite keeps an instant as the text of its naive UTC value ("2026-11-26 06:50:30.123456",
    what Django's SQLite backend writes), one replace away. PostgreSQL hands over the naive UTC
    timestamp, which psycopg reads in C, where Django's reader of an instant with its time zone
    is written in Python and runs once per instant of the list."""
    if vendor == "sqlite":
        return f"replace({column}, ' ', 'T') || 'Z'", str
    return f"({column} AT TIME ZONE 'UTC')", _utc_text
