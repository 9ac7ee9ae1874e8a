"""SESSION_ENGINE: Django's database sessions, with only a digest of each session key in the table.

The session cookie holds the key; django_session keeps its SHA-256 (cut to the column's 40
characters), and every read, write and delete goes by the digest of the key it is given. A key
read from the table is therefore no session: sent as a cookie, it is looked up as the digest of
itself and found nowhere. A session key is 32 random characters (about 165 bits), so a plain
digest cannot be reversed or guessed; no secret goes into it, so SECRET_KEY can change without
signing anybody out here.
"""

import hashlib

from asgiref.sync import sync_to_async
from django.contrib.sessions.backends import db
from django.utils import timezone


def stored_key(session_key: str) -> str:
    """What the table keeps of a session key."""
    return hashlib.sha256(session_key.encode()).hexdigest()[:40]


class SessionStore(db.SessionStore):
    """load, exists, create_model_instance and delete (with their async twins) are the methods a
    session engine implements or extends, as Django's documentation lists them."""

    def _live(self):
        return self.model.objects.filter(session_key=stored_key(self.session_key), expire_date__gt=timezone.now())

    def _forget_key(self):
        # Never adopt an unknown key; Django offers no public setter (hub/tests/test_library_pins.py).
        self._session_key = None

    def load(self):
        session = self._live().first()
        if session is None:
            self._forget_key()
            return {}
        return self.decode(session.session_data)

    async def aload(self):
        session = await self._live().afirst()
        if session is None:
            self._forget_key()
            return {}
        return self.decode(session.session_data)

    def exists(self, session_key):
        return self.model.objects.filter(session_key=stored_key(session_key)).exists()

    async def aexists(self, session_key):
        return await sync_to_async(self.exists)(session_key)

    def create_model_instance(self, data):
        session = super().create_model_instance(data)
        session.session_key = stored_key(session.session_key)
        return session

    async def acreate_model_instance(self, data):
        session = await super().acreate_model_instance(data)
        session.session_key = stored_key(session.session_key)
        return session

    def delete(self, session_key=None):
        session_key = session_key or self.session_key
        if session_key is not None:
            self.model.objects.filter(session_key=stored_key(session_key)).delete()

    async def adelete(self, session_key=None):
        await sync_to_async(self.delete)(session_key)
