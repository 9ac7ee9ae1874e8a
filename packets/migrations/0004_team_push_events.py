"""A push into a team (and a re-push) writes a line of the team's activity log from inside the
database: a trigger on the packets table, so the push stays one statement (one round trip).

Only the creator can push or re-push a packet, so the packet's owner is the actor. An INSERT is
"pushed"; an upsert that replaces the stored packet fires UPDATE triggers instead (on both
PostgreSQL and SQLite), and only a re-push rewrites `body`: "re-pushed". The actor's name is the
display name as accounts.User.display_name spells it (display, else username).
"""

from django.db import migrations

POSTGRESQL = [
    """
    CREATE FUNCTION packets_team_push_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO teams_teamevent (team_id, actor_id, actor_name, kind, detail, created_at)
        SELECT NEW.team_id, u.id, COALESCE(NULLIF(u.display, ''), u.username),
               CASE TG_OP WHEN 'INSERT' THEN 'packet.pushed' ELSE 'packet.repushed' END,
               jsonb_build_object('packet_id', NEW.id, 'goal', left(NEW.goal, 200)), NEW.pushed_at
        FROM accounts_user u WHERE u.id = NEW.owner_id;
        RETURN NULL;
    END $$
    """,
    # WHEN: a personal push does not even call the function.
    "CREATE TRIGGER packet_team_pushed AFTER INSERT ON packets_packet "
    "FOR EACH ROW WHEN (NEW.team_id IS NOT NULL) EXECUTE FUNCTION packets_team_push_event()",
    "CREATE TRIGGER packet_team_repushed AFTER UPDATE OF body ON packets_packet "
    "FOR EACH ROW WHEN (NEW.team_id IS NOT NULL) EXECUTE FUNCTION packets_team_push_event()",
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS packet_team_pushed ON packets_packet",
    "DROP TRIGGER IF EXISTS packet_team_repushed ON packets_packet",
    "DROP FUNCTION IF EXISTS packets_team_push_event()",
]


def _sqlite_trigger(name: str, event: str, kind: str) -> str:
    return f"""
    CREATE TRIGGER {name} AFTER {event} ON packets_packet WHEN NEW.team_id IS NOT NULL
    BEGIN
        INSERT INTO teams_teamevent (team_id, actor_id, actor_name, kind, detail, created_at)
        SELECT NEW.team_id, u.id, COALESCE(NULLIF(u.display, ''), u.username), '{kind}',
               json_object('packet_id', NEW.id, 'goal', substr(NEW.goal, 1, 200)), NEW.pushed_at
        FROM accounts_user u WHERE u.id = NEW.owner_id;
    END
    """


SQLITE = [
    _sqlite_trigger("packet_team_pushed", "INSERT", "packet.pushed"),
    _sqlite_trigger("packet_team_repushed", "UPDATE OF body", "packet.repushed"),
]
SQLITE_REVERSE = ["DROP TRIGGER IF EXISTS packet_team_pushed", "DROP TRIGGER IF EXISTS packet_team_repushed"]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("packets", "0003_list_indexes_cover_ties"),
        ("teams", "0003_roles_events_invite_mail"),
    ]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRESQL, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRESQL_REVERSE, "sqlite": SQLITE_REVERSE}),
        ),
    ]
