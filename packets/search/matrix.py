"""Every stored vector in memory, one matrix per process, for ranking by meaning in numpy.

Each row is a packet's vector with where the packet is (its team, or its owner for a personal
one), so that a ranking can leave out at once the rows a viewer may not read; the read rule
itself is still checked in SQL on what is found (packets.search.semantic). Before each ranking
the matrix reads the vectors written since its last look (an indexed query on a vector's
`embedded_at`, which a move sets too, so that a moved packet's row follows it)."""

import threading
import time
from datetime import timedelta

import numpy as np
from django.db.models import BooleanField, ExpressionWrapper, Q
from django.utils import timezone

from packets.models import Packet
from packets.search import embedding, vectors

# A vector's time is taken just before its transaction commits, and the clocks of two web servers
# differ a little (NTP keeps them within milliseconds): each look asks again for what was written
# in the OVERLAP before the last one began (ids and times only: an unchanged vector is not read
# again). The daily whole read (RELOAD) mends anything a clock further off would make it miss.
OVERLAP = timedelta(seconds=2)
# Seconds after which the matrix is read whole again, dropping the rows of deleted packets (which
# the read rule already keeps out of every answer); the search that does it waits for it.
RELOAD = 24 * 3600
PERSONAL = -1  # the team code of a personal packet
EXACT = 4096  # rows in reach up to which every cosine is computed
SHORTLIST = 2048  # past EXACT, the rows nearest by their signs whose cosine is computed first
ROW = ("id", "embedding", "embedded_at", "team_id", "owner_id")  # what take() reads of a packet


class Matrix:
    """The vectors as rows of one float16 matrix (as stored: half the memory of float32), their
    signs as bits (32 bytes a row), and each row's packet id, team and owner (as small codes).

    Ranking many rows by cosine would read the whole matrix for every query; past EXACT rows in
    reach, the rows are put in order by how many signs they share with the query (XOR and a count
    of bits, over the 32-byte signs), and the cosine is computed for the best SHORTLIST of them,
    then for the next ones only if asked for. Below EXACT, every cosine is computed."""

    def __init__(self):
        self.lock = threading.Lock()
        self.clear()

    def clear(self):
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self.written: dict[str, object] = {}  # each row's embedded_at
        self.codes: dict[object, int] = {}  # team and owner ids, as the small numbers of `teams` and `owners`
        self.matrix = np.zeros((0, embedding.DIMENSIONS), dtype=np.float16)
        self.signs = np.zeros((0, embedding.DIMENSIONS // 64), dtype=np.uint64)
        self.teams = np.zeros(0, dtype=np.int32)
        self.owners = np.zeros(0, dtype=np.int32)
        self.looked = None  # when the last look began
        self.loaded = 0.0  # when it was last read whole (time.monotonic)

    def refresh(self) -> bool:
        """Bring the matrix up to date: read whole when it is older than RELOAD, else read the
        vectors written since the last look (their ids and times first: a vector is read again only
        if it changed). Whether packets wait for their vector (packets.search.vectors.waiting),
        asked in the same statement."""
        with self.lock:
            if time.monotonic() - self.loaded > RELOAD:
                self.clear()
                self.loaded = time.monotonic()
            looked, self.looked = self.looked, timezone.now()
            stored = Packet.objects.filter(embedding__isnull=False).order_by()
            if looked is None:
                self.take(list(stored.values_list(*ROW)))
                return vectors.waiting_packets().exists()
            # One statement: the vectors written since the last look, and the packets that wait
            # for theirs (as few as the vector threads leave: they embed them within a second).
            written = Q(embedding__isnull=False, embedded_at__gte=looked - OVERLAP)
            found = (
                Packet.objects.filter(written | vectors.waiting_condition())
                .order_by()
                .annotate(waits=ExpressionWrapper(Q(embedding__isnull=True), output_field=BooleanField()))
                .values_list("id", "embedded_at", "waits")
            )
            changed, waits = [], False
            for packet_id, at, waiting_row in found:
                if waiting_row:
                    waits = True
                elif self.written.get(packet_id) != at:
                    changed.append(packet_id)
            if changed:
                self.take(list(stored.filter(id__in=changed).values_list(*ROW)))
            return waits

    def take(self, found) -> None:
        """Rows (id, vector, embedded_at, team_id, owner_id), new or replacing a packet's row."""
        if not found:
            return
        new = [packet_id for packet_id in dict.fromkeys(row[0] for row in found) if packet_id not in self.rows]
        if len(self.ids) + len(new) > len(self.matrix):
            # Room for more rows: a push now and then does not copy the whole matrix.
            size = len(self.ids) + len(new)
            size = max(size + 1024, size * 5 // 4)
            self.matrix = _grown(self.matrix, size, len(self.ids))
            self.signs = _grown(self.signs, size, len(self.ids))
            self.teams, self.owners = _grown(self.teams, size, len(self.ids)), _grown(self.owners, size, len(self.ids))
        for packet_id in new:
            self.rows[packet_id] = len(self.ids)
            self.ids.append(packet_id)
        rows = np.array([self.rows[row[0]] for row in found])
        vectors = np.frombuffer(b"".join(bytes(row[1]) for row in found), dtype="<f2").reshape(len(found), -1)
        self.matrix[rows] = vectors
        self.signs[rows] = _signs(vectors)
        self.teams[rows] = [PERSONAL if row[3] is None else self.code(row[3]) for row in found]
        self.owners[rows] = [self.code(row[4]) for row in found]
        self.written.update((row[0], row[2]) for row in found)

    def code(self, key) -> int:
        return self.codes.setdefault(key, len(self.codes))

    def ranked(self, vector: np.ndarray, *, owner=None, team_ids=(), packet_ids=()):
        """The packets personal to `owner`, in the teams `team_ids` or among `packet_ids`, with
        their cosine to `vector`, best first, lazily (see the class)."""
        with self.lock:
            # Rows are only ever added after the last: the first `count` ids stay what they are.
            ids, count = self.ids, len(self.ids)
            allowed = np.isin(self.teams[:count], [self.codes[team] for team in team_ids if team in self.codes])
            if owner is not None and owner in self.codes:
                allowed |= (self.teams[:count] == PERSONAL) & (self.owners[:count] == self.codes[owner])
            allowed[[self.rows[p] for p in packet_ids if self.rows.get(p, count) < count]] = True
            candidates = np.flatnonzero(allowed)
            apart = None
            if len(candidates) > EXACT:
                # Every row in reach (one person's hub): the signs as they are, not a copy.
                signs = self.signs[:count] if len(candidates) == count else self.signs[candidates]
                counts = np.bitwise_count(signs ^ _signs(vector[None, :]))
                apart = sum(counts[:, word] for word in range(counts.shape[1]))  # quicker than .sum(axis=1)
            matrix = self.matrix
        vector = vector.astype(np.float32)
        for rows in _windows(candidates, apart):
            scores = matrix[rows].astype(np.float32) @ vector
            for index in np.argsort(-scores, kind="stable"):
                yield ids[rows[index]], float(scores[index])


def _windows(candidates: np.ndarray, apart):
    """The candidates in the order their cosines are computed: all at once when `apart` is None;
    else the SHORTLIST fewest signs `apart` first (a partial sort), then the rest by signs apart."""
    if apart is None or len(candidates) <= SHORTLIST:
        yield candidates
        return
    first = np.argpartition(apart, SHORTLIST - 1)[:SHORTLIST]
    yield candidates[first]
    rest = np.ones(len(candidates), dtype=bool)
    rest[first] = False
    rest = np.flatnonzero(rest)
    order = rest[np.argsort(apart[rest], kind="stable")]
    for start in range(0, len(order), SHORTLIST * 8):
        yield candidates[order[start : start + SHORTLIST * 8]]


def _signs(vectors: np.ndarray) -> np.ndarray:
    """The signs of each row of `vectors`, packed into 64-bit words (DIMENSIONS // 64 of them)."""
    return np.packbits(vectors > 0, axis=1).view(np.uint64)


def _grown(array: np.ndarray, size: int, used: int) -> np.ndarray:
    grown = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
    grown[:used] = array[:used]
    return grown


matrix = Matrix()
