"""Web-search syntax (words in any order, "quoted phrases", -word, OR), parsed once and rebuilt
for each database: a tsquery of `phraseto_tsquery` terms for PostgreSQL, an FTS5 query of quoted
strings only for SQLite (so no user input can be FTS5 syntax). packets.search.selectors runs them."""

import functools
import re
from dataclasses import dataclass, field

import snowballstemmer

# PostgreSQL's English stop words (tsearch_data/english.stop): its parser drops them, so the FTS5
# query drops them too, and "the flaky test" finds the same packets on both databases.
STOP_WORDS = frozenset(
    """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that
these those am is are was were be been being have has had having do does did doing a an the and
but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here
there when where why how all any both each few more most other some such no nor not only own
same so than too very s t can will just don should now
""".split()
)

# Words as FTS5's unicode61 tokenizer cuts them: runs of letters and digits.
WORD = re.compile(r"[^\W_]+")
# One term of web-search syntax: an optional "-", then a "quoted phrase" (the closing quote may
# be missing) or a word.
TERM = re.compile(r'(?P<minus>-?)(?:"(?P<phrase>[^"]*)"?|(?P<word>[^\s"]+))')
PACKET_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{9,63}")

_stemmer = snowballstemmer.stemmer("english")


@dataclass(frozen=True)
class Term:
    text: str  # as typed, without its quotes or "-"
    words: tuple[str, ...]  # its words, lowercase (several for a phrase or "flaky-test")
    excluded: bool


@dataclass
class Query:
    """A parsed search: alternatives (OR) of terms that must all hold (AND)."""

    text: str
    alternatives: list[list[Term]] = field(default_factory=list)

    @property
    def wanted_stems(self) -> set[str]:
        """Stems of the words that should be highlighted (not the excluded ones)."""
        return {
            stem(word)
            for terms in self.alternatives
            for term in terms
            if not term.excluded
            for word in term.words
            if word not in STOP_WORDS
        }


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The English stem of a word (a pure-Python stemmer: the cache keeps snippets cheap, as
    packets reuse their words)."""
    return _stemmer.stemWord(word.lower())


def parse(text: str) -> Query:
    query = Query(text)
    terms: list[Term] = []
    for match in TERM.finditer(text):
        phrase, word, excluded = match["phrase"], match["word"], bool(match["minus"])
        if word is not None and word.lower() == "or" and not excluded:
            query.alternatives.append(terms)
            terms = []
            continue
        typed = phrase if phrase is not None else word
        words = WORD.findall(typed.lower())
        if phrase is None:
            words = [w for w in words if w not in STOP_WORDS]
        if words:
            terms.append(Term(typed, tuple(words), excluded))
    query.alternatives.append(terms)
    query.alternatives = [terms for terms in query.alternatives if any(not t.excluded for t in terms)]
    return query


def tsquery_sql(query: Query) -> tuple[str, list[str]] | None:
    """The query as a PostgreSQL tsquery expression (each term through phraseto_tsquery, which
    parses and stems it as the vector was), with its parameters. None when nothing is left to look
    for. Built from the same parse as FTS5's, so both databases read the syntax alike."""
    alternatives, params = [], []
    for terms in query.alternatives:
        parts = []
        for term in sorted(terms, key=lambda t: t.excluded):
            parts.append(("!!" if term.excluded else "") + "phraseto_tsquery('english', %s)")
            params.append(term.text)
        alternatives.append("(" + " && ".join(parts) + ")")
    return (" || ".join(alternatives), params) if alternatives else None


def fts5_query(query: Query) -> str | None:
    """The query in FTS5's syntax, built only from double-quoted strings of plain words (which
    FTS5 reads as phrases), so nothing a person types is read as an operator. None when nothing
    is left to look for."""

    def quoted(term: Term) -> str:
        return '"' + " ".join(term.words) + '"'

    alternatives = []
    for terms in query.alternatives:
        # Flat lists, not nested pairs: FTS5's parser has a small stack.
        expression = " AND ".join(dict.fromkeys(quoted(t) for t in terms if not t.excluded))
        excluded = " OR ".join(dict.fromkeys(quoted(t) for t in terms if t.excluded))
        alternatives.append(f"(({expression}) NOT ({excluded}))" if excluded else f"({expression})")
    return " OR ".join(alternatives) or None
