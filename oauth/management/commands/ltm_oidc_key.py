"""`manage.py ltm_oidc_key`: a new RSA private key (PEM) for the hub's ID tokens, to put in
LTM_OIDC_RSA_KEY (docs/sign-in.md). `make run` keeps one for development in a git-ignored file."""

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.management.base import BaseCommand


def new_rsa_key_pem(bits: int = 2048) -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


class Command(BaseCommand):
    help = "Print a new RSA private key (PEM) for LTM_OIDC_RSA_KEY, the key the hub signs ID tokens with."

    def add_arguments(self, parser):
        parser.add_argument("--bits", type=int, default=2048, choices=[2048, 3072, 4096])

    def handle(self, *args, bits, **options):
        self.stdout.write(new_rsa_key_pem(bits), ending="")
