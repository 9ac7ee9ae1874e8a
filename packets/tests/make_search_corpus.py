"""Writes search_corpus.jsonl, the fixed corpus of the search quality test (run once; the data is
committed, so the test never depends on randomness):

    python packets/tests/make_search_corpus.py

Thirty hand-written packets are the ones the test's queries look for; two hundred more are made
from a seeded mix of everyday engineering work that shares their vocabulary (flaky tests, caches,
migrations, deadlocks...), so a query has to find the right one among near misses.
"""

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent


def packet(
    key,
    goal,
    next_step,
    *,
    project="",
    tags=(),
    decisions=(),
    attempts=(),
    criteria=(),
    constraints=(),
    methods=(),
    questions=(),
):
    data = {
        "ltm_version": "0.2",
        "id": f"01CORPUS{key.upper().replace('-', '')[:18]:0<18}",
        "goal": goal,
        "next_step": next_step,
    }
    if project:
        data["project"] = {"name": project}
    if tags:
        data["tags"] = list(tags)
    if decisions:
        data["decisions"] = [{"what": w, "why": y, "locked": True} for w, y in decisions]
    if attempts:
        data["attempts"] = [{"tried": t, "outcome": o, "learned": lesson} for t, o, lesson in attempts]
    if criteria:
        data["success_criteria"] = list(criteria)
    if constraints:
        data["constraints"] = list(constraints)
    if methods:
        data["methods"] = [{"name": n, "when_applicable": w, "how": h} for n, w, h in methods]
    if questions:
        data["open_questions"] = list(questions)
    return data


ANCHORS = [
    packet(
        "flaky107",
        "Stop test_checkout_total (#107) from flaking on CI",
        "Pin the clock in the checkout fixture and rerun CI 50 times",
        project="shop-web",
        tags=["ci", "flaky-test"],
        attempts=[("Added a retry decorator", "failed", "Retries hid the race instead of fixing it")],
    ),
    packet(
        "invoicedeadlock",
        "Fix the deadlock when two workers number invoices at once",
        "Write the migration for the per-tenant invoice counter table",
        project="billing",
        tags=["postgres", "concurrency"],
        decisions=[
            ("Number invoices from a counter row locked per tenant", "A sequence leaves gaps that auditors reject")
        ],
    ),
    packet(
        "stampede",
        "Prevent the cache stampede on the midnight revenue report",
        "Add a lock around the report recompute and measure Redis load",
        project="analytics",
        tags=["redis", "caching"],
        attempts=[
            ("Raised the TTL to 24 hours", "partial", "Fewer misses but all keys still expire together at midnight")
        ],
    ),
    packet(
        "deviceflow",
        "Make the CLI respect slow_down while polling the device flow token endpoint",
        "Add the interval bump to the poll loop and a test with a fake server",
        project="ltm-cli",
        tags=["oauth", "cli"],
        decisions=[
            ("Add 5 seconds to the polling interval on every slow_down", "RFC 8628 says so and the hub enforces it")
        ],
    ),
    packet(
        "apnscert",
        "Renew the expired APNs certificate so iOS push notifications arrive again",
        "Upload the new .p8 key to the notification service and send a test push",
        project="mobile",
        tags=["ios", "notifications"],
        constraints=["Do not rotate the Android FCM key in the same deploy"],
    ),
    packet(
        "thumbleak",
        "Find the memory leak in the thumbnail worker",
        "Run the worker under tracemalloc for 1000 images and diff the snapshots",
        project="media",
        tags=["pillow", "memory"],
        attempts=[
            (
                "Closed every Pillow image explicitly",
                "partial",
                "RSS still grows 2 MB per hundred images; the EXIF parser holds buffers",
            )
        ],
    ),
    packet(
        "vite",
        "Move the admin frontend build from Webpack to Vite",
        "Port the SVG loader config, then compare bundle sizes",
        project="admin-ui",
        tags=["frontend", "build"],
        decisions=[("Keep the legacy browser plugin off", "Only evergreen browsers use the admin")],
    ),
    packet(
        "oomkilled",
        "Nightly export job gets OOMKilled on Kubernetes",
        "Stream rows with a server-side cursor instead of loading the whole table",
        project="data-pipeline",
        tags=["kubernetes", "batch"],
        attempts=[
            ("Raised the memory limit to 4 GiB", "failed", "It grows with the table; the limit only postpones the kill")
        ],
    ),
    packet(
        "dst",
        "Recurring meetings shift by an hour after the daylight saving change",
        "Store the recurrence in the organiser's time zone, not UTC offsets",
        project="calendar",
        tags=["timezones"],
        decisions=[
            ("Expand occurrences with zoneinfo at read time", "Stored UTC instants drift across DST transitions")
        ],
    ),
    packet(
        "csvexcel",
        "Excel shows garbled accents in the CSV export",
        "Write a UTF-8 byte order mark before the header row",
        project="reports",
        tags=["csv", "encoding"],
        attempts=[("Exported as latin-1", "failed", "Breaks names outside Western Europe")],
    ),
    packet(
        "tokenbucket",
        "Rate limit the public API per key",
        "Implement a token bucket in Redis with a Lua script and expose limits in headers",
        project="public-api",
        tags=["rate-limiting", "redis"],
        decisions=[("Token bucket rather than fixed windows", "Fixed windows allow double bursts at the boundary")],
    ),
    packet(
        "advisory",
        "Serialize the nightly ledger close across app servers",
        "Replace the cron lock file with the database lock and deploy to staging",
        project="ledger",
        tags=["cron"],
        decisions=[
            (
                "Use PostgreSQL advisory locks instead of SELECT FOR UPDATE on a dummy row",
                "The dummy row became a hot spot and blocked vacuum",
            )
        ],
    ),
    packet(
        "ormbisect",
        "Find why order listing got three times slower last week",
        "Add select_related for customer on the order queryset and benchmark",
        project="shop-api",
        tags=["performance"],
        attempts=[
            (
                "Bisected the last 40 commits with a timing script",
                "succeeded",
                "The regression came from the ORM upgrade dropping a join",
            )
        ],
    ),
    packet(
        "terraformiam",
        "Tighten the deploy role's permissions",
        "Split the wildcard policy into per-bucket statements and run a plan",
        project="infra",
        tags=["terraform", "aws-iam"],
    ),
    packet(
        "billinggw",
        "Handle duplicate webhook deliveries",
        "Store each event id with a unique constraint and skip repeats",
        project="billing-gateway",
        tags=["stripe", "webhooks"],
        decisions=[
            ("Idempotency by event id, not by payload hash", "Stripe may resend the same event with a new signature")
        ],
    ),
    packet(
        "poolexhausted",
        "API returns 500s under load with connection pool exhausted errors",
        "Lower the per-worker pool size and add PgBouncer in transaction mode",
        project="shop-api",
        tags=["postgres", "pooling"],
        attempts=[
            (
                "Doubled max_connections on the server",
                "failed",
                "Memory pressure on the database host; the pool still ran dry",
            )
        ],
    ),
    packet(
        "darkweb",
        "Ship dark mode for the web dashboard",
        "Replace hard-coded colours with CSS variables in the settings pages",
        project="dashboard",
        tags=["dark-mode", "css"],
    ),
    packet(
        "darkandroid",
        "Ship dark mode for the Android app",
        "Move the remaining colours into themes.xml night variants",
        project="mobile",
        tags=["dark-mode", "android"],
    ),
    packet(
        "retryupload",
        "Retry large file uploads that fail midway",
        "Resume from the last acknowledged chunk using the upload session id",
        project="media",
        tags=["uploads"],
        decisions=[("Chunks of 8 MiB with resumable sessions", "Mobile networks drop long single requests")],
    ),
    packet(
        "shardevents",
        "Plan how the events table grows past a billion rows",
        "Measure the top ten tenants' share of rows",
        project="analytics",
        tags=["scaling"],
        questions=["Should we shard the events table by tenant or partition it by month?"],
    ),
    packet(
        "gitbisect",
        "Write down how we hunt performance regressions",
        "Turn the timing harness into a reusable script in tools/",
        project="handbook",
        tags=["process"],
        methods=[
            (
                "bisect-with-git",
                "A regression between two known releases",
                "git bisect run a script that times the endpoint and exits 1 above the threshold",
            )
        ],
    ),
    packet(
        "p95search",
        "Make the product search page fast again",
        "Add a trigram index on product names and measure",
        project="shop-web",
        tags=["search", "performance"],
        criteria=["p95 latency under 200 ms on the search page with the production catalogue"],
    ),
    packet(
        "graphqln1",
        "Remove the N+1 queries in the GraphQL orders resolver",
        "Batch customer lookups with a DataLoader per request",
        project="shop-api",
        tags=["graphql", "performance"],
    ),
    packet(
        "screenreader",
        "Make the checkout form usable with a screen reader",
        "Add labels and aria-describedby to the address fields and test with NVDA",
        project="shop-web",
        tags=["accessibility"],
    ),
    packet(
        "polishplural",
        "Fix plural forms for Polish in the notification emails",
        "Switch the templates to ngettext with the CLDR plural rules",
        project="notifications",
        tags=["i18n"],
        attempts=[
            ("Used a singular/plural if statement", "failed", "Polish has three plural forms; two and five differ")
        ],
    ),
    packet(
        "wsreconnect",
        "Browser clients hammer the server after a websocket drop",
        "Add exponential backoff with jitter to reconnect",
        project="realtime",
        tags=["websocket"],
    ),
    packet(
        "oktasaml",
        "Single sign-on with Okta for enterprise customers",
        "Configure the SAML metadata endpoint and map groups to roles",
        project="auth-service",
        tags=["sso", "saml"],
    ),
    packet(
        "kafkalag",
        "Consumer lag on the orders topic keeps growing",
        "Increase partitions to 24 and scale the consumer group",
        project="data-pipeline",
        tags=["kafka"],
        decisions=[("Key messages by order id", "Keeps each order's events in sequence on one partition")],
    ),
    packet(
        "secretsrotate",
        "Rotate the leaked Sentry DSN and database password",
        "Update the vault entries and restart the web pods",
        project="infra",
        tags=["security", "incident"],
        constraints=["No downtime for the checkout during rotation"],
    ),
    packet(
        "pdfinvoice",
        "Invoice PDFs render with the wrong font on the server",
        "Bundle the font files with WeasyPrint and set font-face paths",
        project="billing",
        tags=["pdf"],
    ),
]

SUBSYSTEMS = [
    "checkout",
    "billing",
    "search indexer",
    "mobile app",
    "admin dashboard",
    "data pipeline",
    "notification service",
    "auth service",
    "CI pipeline",
    "docs site",
    "reporting job",
    "public API",
    "media worker",
    "calendar sync",
    "ledger",
    "onboarding flow",
]
PROBLEMS = [
    "flaky tests",
    "slow queries",
    "memory growth",
    "timeouts",
    "broken deploys",
    "missing translations",
    "high error rate",
    "failing migration",
    "stale cache entries",
    "duplicate emails",
    "race condition",
    "lock contention",
    "disk filling up",
    "noisy alerts",
    "slow cold start",
]
TECHS = [
    "PostgreSQL",
    "Redis",
    "Celery",
    "Kafka",
    "React",
    "Django",
    "Go",
    "Terraform",
    "Kubernetes",
    "S3",
    "Elasticsearch",
    "nginx",
    "GitHub Actions",
    "Sentry",
    "RabbitMQ",
]
VERBS = ["Fix", "Investigate", "Reduce", "Eliminate", "Understand", "Track down", "Work around"]
NEXT = [
    "Write a failing test that reproduces it",
    "Add metrics around {tech} and watch for a day",
    "Open a PR with the change and ask for review",
    "Roll the fix out to staging first",
    "Read the {tech} changelog for the version we run",
    "Pair with the on-call engineer to reproduce",
    "Profile the {sub} under production-like load",
    "Draft a design note for the team",
]
DECISIONS = [
    ("Keep {tech} at the current major version", "An upgrade now would mix two changes in one incident"),
    ("Log the request id on every line", "Correlating {sub} logs took hours"),
    ("Feature-flag the change", "We can turn it off without a deploy"),
    ("Write the fix behind a migration", "Old rows need the new column filled"),
    ("Alert on the p99, not the average", "Averages hid the slow tail in the {sub}"),
]
ATTEMPTS = [
    ("Restarted the {sub}", "partial", "It comes back after a few hours"),
    ("Added an index", "failed", "The planner still chose a sequential scan"),
    ("Increased the timeout", "failed", "Users waited longer and still failed"),
    ("Cleared the {tech} cache", "partial", "Helps until the next deploy"),
    ("Pinned the dependency", "succeeded", "The breaking change came from a minor release"),
]
TAGS = ["backend", "frontend", "ops", "bug", "performance", "testing", "security", "infra", "ux", "data"]
PROJECTS = ["shop-web", "shop-api", "billing", "infra", "mobile", "analytics", "handbook", "data-pipeline"]


def filler(rng: random.Random, number: int) -> dict:
    sub, problem, tech = rng.choice(SUBSYSTEMS), rng.choice(PROBLEMS), rng.choice(TECHS)
    fill = {"sub": sub, "tech": tech}
    decisions = [(w.format(**fill), y.format(**fill)) for w, y in rng.sample(DECISIONS, rng.randint(0, 2))]
    attempts = [
        (t.format(**fill), o, lesson.format(**fill)) for t, o, lesson in rng.sample(ATTEMPTS, rng.randint(0, 2))
    ]
    return packet(
        f"fill{number:04d}",
        f"{rng.choice(VERBS)} the {problem} in the {sub} ({tech})",
        rng.choice(NEXT).format(**fill),
        project=rng.choice(PROJECTS),
        tags=sorted(set(rng.sample(TAGS, rng.randint(1, 3)))),
        decisions=decisions,
        attempts=attempts,
        questions=[f"Is {tech} the right tool for the {sub}?"] if rng.random() < 0.2 else (),
    )


def main():
    rng = random.Random(20261124)
    packets = ANCHORS + [filler(rng, n) for n in range(200)]
    start = datetime(2026, 6, 1, tzinfo=UTC)
    order = list(range(len(packets)))
    rng.shuffle(order)  # anchors are not all the newest or the oldest
    with (HERE / "search_corpus.jsonl").open("w") as out:
        for position, data in zip(order, packets):
            data["created_at"] = (start + timedelta(hours=7 * position)).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.write(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
