from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from accounts.services import api_token_create


class Command(BaseCommand):
    help = "Mint a personal API token for a user and print it, alone on one line, once."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="cli", help="a label such as laptop or ci")

    def handle(self, *args, username, name, **options):
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}; create it with: manage.py ltm_user {username}")
        _, plaintext = api_token_create(actor=user, name=name)
        self.stdout.write(plaintext)
