from django.core.management.base import BaseCommand

from accounts.services import user_upsert


class Command(BaseCommand):
    help = "Create a user, or update its password/email. Email defaults to <username>@example.com."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--password", help="set this password (else the user has none)")
        parser.add_argument("--email", help="default: <username>@example.com")

    def handle(self, *args, username, password, email, **options):
        user, created = user_upsert(username=username, password=password, email=email)
        verb = "created" if created else "updated"
        self.stdout.write(f"{verb} user {user.username} (id {user.pk}, {user.email})")
