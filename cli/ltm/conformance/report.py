"""The results of a run as text (a line a check, failures in full), JSON or JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections import Counter

from . import vectors
from .runner import Result

FORMATS = ("text", "json", "junit")
_MARK = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}


def summary(results: list[Result], server: str, seconds: float) -> str:
    counts = Counter(result.outcome for result in results)
    core = [result for result in results if not result.extension]
    extensions = [result for result in results if result.extension]
    return (
        f"conformance of {server}: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped "
        f"(core {_passed(core)}, extensions {_passed(extensions)}) in {seconds:.1f}s"
    )


def _passed(results: list[Result]) -> str:
    run = [result for result in results if result.outcome != "skip"]
    return f"{sum(result.outcome == 'pass' for result in run)}/{len(run)}"


def title(result: Result) -> str:
    kind = " [extension]" if result.extension else ""
    return f"{result.group}{kind}: {result.name}"


def spec_line(spec: dict) -> str:
    return f'{vectors.source(spec)} § {spec["section"]}: "{spec["quote"]}"'


def line(result: Result) -> str:
    """A result as the text report prints it: one line, and for a failure or a skip its why."""
    text = f"{_MARK[result.outcome]}  {title(result)}"
    if result.outcome == "fail":
        text += "\n" + _indented(f"{spec_line(result.spec)}\n{result.detail}")
    elif result.outcome == "skip":
        text += "\n" + _indented(f"skipped: {result.detail}")
    return text


def _indented(text: str) -> str:
    return "\n".join("      " + part for part in text.splitlines())


def as_text(results: list[Result], server: str, seconds: float, notes: list[str]) -> str:
    return "\n".join([*(line(result) for result in results), *notes, summary(results, server, seconds)]) + "\n"


def as_json(results: list[Result], server: str, seconds: float, notes: list[str]) -> str:
    document = {
        "server": server,
        "summary": summary(results, server, seconds),
        "counts": dict(Counter(result.outcome for result in results)),
        "notes": notes,
        "checks": [
            {
                "group": result.group,
                "name": result.name,
                "extension": result.extension,
                "outcome": result.outcome,
                "spec": result.spec,
                "detail": result.detail,
                "seconds": round(result.seconds, 3),
            }
            for result in results
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def as_junit(results: list[Result], server: str, seconds: float, notes: list[str]) -> str:
    """One <testsuite> per group, as CI systems show JUnit reports."""
    suites = ElementTree.Element("testsuites", name=f"ltm conformance of {server}", time=f"{seconds:.3f}")
    for group in dict.fromkeys(result.group for result in results):
        members = [result for result in results if result.group == group]
        counts = Counter(result.outcome for result in members)
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=group,
            tests=str(len(members)),
            failures=str(counts["fail"]),
            skipped=str(counts["skip"]),
        )
        for result in members:
            case = ElementTree.SubElement(
                suite, "testcase", classname=f"conformance.{group}", name=result.name, time=f"{result.seconds:.3f}"
            )
            if result.outcome == "fail":
                failure = ElementTree.SubElement(case, "failure", message=spec_line(result.spec))
                failure.text = result.detail
            elif result.outcome == "skip":
                ElementTree.SubElement(case, "skipped", message=result.detail)
    if notes:
        ElementTree.SubElement(suites, "system-out").text = "\n".join(notes)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


WRITERS = {"text": as_text, "json": as_json, "junit": as_junit}
