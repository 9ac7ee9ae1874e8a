"""The search vector's function in PL/pgSQL, computing the same vector (PostgreSQL only).

A SQL-language function with a FROM clause cannot be inlined, and PostgreSQL parses and plans
its body again in every statement that calls it: on a push, that was half the time PostgreSQL
spent on the INSERT. PL/pgSQL keeps its plans for the life of the connection. The stored vectors
stay valid (same texts, same weights, same configuration), so no row is rewritten.
"""

import importlib

from django.db import migrations

search = importlib.import_module("packets.migrations.0005_search")

PLPGSQL = f"""
CREATE OR REPLACE FUNCTION packets_search_vector(goal text, tags text, next_step text, project text, body text)
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  b jsonb := body::jsonb;
BEGIN
  RETURN setweight(to_tsvector('english'::regconfig, goal || ' ' || tags), 'A')
      || setweight(to_tsvector('english'::regconfig, next_step || ' ' || project), 'B')
      || setweight(jsonb_to_tsvector('english'::regconfig, {search._pg_texts(search.CONTEXT_TEXTS)}, '["string"]'), 'B')
      || setweight(jsonb_to_tsvector('english'::regconfig, {search._pg_texts(search.DETAIL_TEXTS)}, '["string"]'), 'C');
END
$$
"""
# CREATE OR REPLACE keeps the function's identity, so the generated column keeps depending on it.
SQL = search.PG_FORWARD[0].replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


class Migration(migrations.Migration):
    dependencies = [("packets", "0006_fewer_indexes_to_write")]

    operations = [
        migrations.RunPython(search._runner({"postgresql": [PLPGSQL]}), search._runner({"postgresql": [SQL]})),
    ]
