"""A push's line in the team's activity log is written by the push's own statement now
(teams.events, the log's one writer), so the triggers of migration 0004 go."""

import importlib

from django.db import migrations

TEAM_PUSH_EVENTS = importlib.import_module("packets.migrations.0004_team_push_events")


class Migration(migrations.Migration):
    dependencies = [("packets", "0007_search_vector_in_plpgsql")]

    operations = [
        migrations.RunPython(
            TEAM_PUSH_EVENTS._run(
                {"postgresql": TEAM_PUSH_EVENTS.POSTGRESQL_REVERSE, "sqlite": TEAM_PUSH_EVENTS.SQLITE_REVERSE}
            ),
            TEAM_PUSH_EVENTS._run({"postgresql": TEAM_PUSH_EVENTS.POSTGRESQL, "sqlite": TEAM_PUSH_EVENTS.SQLITE}),
        ),
    ]
