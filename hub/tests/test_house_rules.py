"""Two of the house's code rules, over every Python module of the repository (settings, bench/ and
checks/ included, migrations aside): no module over 350 lines, and no measured figure in a comment
or a docstring, where it would go stale (figures live in bench/README.md and the manual's
Benchmarks page)."""

import io
import os
import re
import tokenize
from pathlib import Path

from hub.testing import ROOT

MOST_LINES = 350
NOT_OURS = {".venv", ".venv-vps", "node_modules", "site-packages", "migrations", "docs_site", "staticfiles"}

# A duration in microseconds, or a comparison by a factor: what a measurement says. Durations in
# milliseconds are often settings (a backoff, a sampling interval), so only comments are held to them.
MEASURED = re.compile(r"\d\s?µs\b|\d(\s?[x×]|\s+times)\s+(faster|slower|dearer|cheaper)\b", re.IGNORECASE)
MEASURED_IN_A_COMMENT = re.compile(rf"{MEASURED.pattern}|\d\s?ms\b", re.IGNORECASE)


def modules() -> list[Path]:
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in NOT_OURS and not name.startswith(".")]
        found += [Path(folder) / name for name in files if name.endswith(".py")]
    return found


def figures_in(text: str) -> list[str]:
    found = []
    if not MEASURED_IN_A_COMMENT.search(text):
        return found  # nothing to look for: most modules are not read token by token
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        comment = token.type == tokenize.COMMENT
        docstring = token.type == tokenize.STRING and token.string.lstrip("rbuRBU").startswith(('"""', "'''"))
        if (comment and MEASURED_IN_A_COMMENT.search(token.string)) or (docstring and MEASURED.search(token.string)):
            found.append(f"line {token.start[0]}: {token.string[:80]}")
    return found


def test_no_module_is_over_350_lines():
    long = {
        str(path.relative_to(ROOT)): lines
        for path in modules()
        if (lines := len(path.read_text().splitlines())) > MOST_LINES
    }
    assert long == {}, f"split these by subject: {long}"


def test_no_comment_narrates_a_measured_figure():
    narrated = {str(path.relative_to(ROOT)): found for path in modules() if (found := figures_in(path.read_text()))}
    assert narrated == {}, f"move these figures to bench/README.md: {narrated}"


def test_the_figure_check_sees_a_figure():
    """The check is not vacuous: the figures it exists for are found, a setting in a docstring is not."""
    assert figures_in("x = 1  # the lane saves 80-120 µs a call\n")
    assert figures_in("x = 1  # a pull took 3.2 ms through DRF\n")
    assert figures_in('"""Batches are 2.5x faster than single calls."""\n')
    assert not figures_in('"""Retries after 1 ms, then 2, 5 and 10."""\n')
