from django.core.management.base import BaseCommand, CommandError

from accounts.models import TOKEN_SCOPES, User
from accounts.services import api_token_create
from core.errors import HubError


class Command(BaseCommand):
    help = "Mint a personal API token for a user and print it, alone on one line, once."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="cli", help="a label such as laptop or ci")
        parser.add_argument("--scope", default="read write", choices=TOKEN_SCOPES, help="default: read write")
        parser.add_argument("--expires-days", type=int, default=None, help="default: never expires")

    def handle(self, *args, username, name, scope, expires_days, **options):
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}; create it with: manage.py ltm_user {username}")
        try:
            _, plaintext = api_token_create(actor=user, name=name, scope=scope, expires_in_days=expires_days)
        except HubError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(plaintext)
