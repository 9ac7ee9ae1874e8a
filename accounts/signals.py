"""Signals other apps listen to. Apps above accounts (teams, packets) may not be imported here,
so accounts announces what happens and they act on it."""

from django.dispatch import Signal

# Sent by accounts.services.user_delete inside its transaction, before the user row goes:
# receivers move what must outlive the account. Arguments: user.
user_deleting = Signal()
