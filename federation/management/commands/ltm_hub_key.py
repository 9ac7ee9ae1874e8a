"""`manage.py ltm_hub_key`: print a new Ed25519 private key in PEM, for LTM_HUB_KEY (`make run`
keeps one in a git-ignored file)."""

from django.core.management.base import BaseCommand

from federation.keys import new_key_pem


class Command(BaseCommand):
    help = "Print a new Ed25519 private key (PEM) for LTM_HUB_KEY: the key this hub signs its federation messages with."

    def handle(self, *args, **options):
        self.stdout.write(new_key_pem(), ending="")
