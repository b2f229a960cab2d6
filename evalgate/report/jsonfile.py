"""JSON and JSONL renderings of a Report (the machine-readable contract)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from evalgate.results import FileResult, Report


def render_json(report: Report, lines: Sequence[str] | None = None) -> str:
    """`{"rubric": {...}, "results": [...], "summary": {...}}`, stable key order, one result per line.
    `lines`: the results' lines already rendered (`result_line`, one per result in order), as
    `evalgate check` renders them while its workers read the next files."""
    if lines is None:
        return pretty_json(report.to_json(), expand=2)
    return "".join(json_pieces(report, lines))


def json_pieces(report: Report, lines: Sequence[str]) -> list[str]:
    """`render_json(report, lines)` as pieces to write one after the other: the report around the
    results, and the lines between their separators, so that no copy of the whole (2 MB for the
    corpus) is made and then encoded again."""
    return _pieces(report, lines, str)


def encoded_pieces(report: Report, lines: Sequence[bytes], encoding: str, errors: str) -> list[bytes]:
    """`json_pieces` written in `encoding`, for lines already encoded so (`result_line(r).encode(
    encoding, errors)`): a line kept as a str takes two bytes a character once it holds one outside
    Latin-1 (an em dash), so the corpus's lines kept as text were 4.4 MB of the run's peak, 2.3 MB
    encoded."""
    return _pieces(report, lines, lambda text: text.encode(encoding, errors))


def _pieces(report: Report, lines: Sequence[Any], form: Any) -> list[Any]:
    if len(lines) != len(report.results):
        raise ValueError(f"{len(lines)} rendered lines for {len(report.results)} results")
    if not lines:
        return [form(pretty_json(report.to_json(), expand=2))]
    # one stand-in result, then the lines in its place (json.dumps escapes every control character,
    # so the stand-in occurs nowhere else)
    before, after = pretty_json(report.to_json(results=[_Rendered(_LINES)]), expand=2).split(_LINES)
    separator = form(",\n    ")
    pieces = [form(before)]
    for line in lines:
        pieces += (line, separator)
    pieces[-1] = form(after)
    return pieces


_LINES = "\x00results\x00"


def result_line(result: FileResult) -> str:
    """One result as the JSON report writes it, on one line."""
    return json.dumps(result.to_json(), ensure_ascii=False, check_circular=False)


class _Rendered(str):
    """JSON text already rendered, written as it is."""


def pretty_json(value: Any, *, expand: int) -> str:
    """JSON with the outer `expand` levels of objects and arrays laid out one member per line (indented
    by two) and everything deeper written on one line, then a final newline.

    `json.dumps(indent=...)` runs the pure-Python encoder (only unindented output has the C one): on
    the corpus report it took 0.22 s of a 1 s run. Here the deep parts go through the C encoder, and
    a report still diffs line by line, one file's result per line."""
    return _pretty(value, expand, "") + "\n"


def _pretty(value: Any, expand: int, indent: str) -> str:
    inner = indent + "  "
    if expand > 0 and isinstance(value, dict) and value:
        members = (
            f"{inner}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, expand - 1, inner)}"
            for k, v in value.items()
        )
        return "{\n" + ",\n".join(members) + f"\n{indent}}}"
    if expand > 0 and isinstance(value, list) and value:
        return "[\n" + ",\n".join(inner + _pretty(v, expand - 1, inner) for v in value) + f"\n{indent}]"
    if isinstance(value, _Rendered):
        return str.__str__(value)
    return json.dumps(value, ensure_ascii=False, check_circular=False)


def render_jsonl(report: Report) -> str:
    """One result per line, each carrying the rubric id and version (and the prompt version, when
    judges ran) so lines stand alone."""
    rubric = report.rubric.to_json()
    lines = [json.dumps({"rubric": rubric, **r.to_json()}, ensure_ascii=False) for r in report.results]
    return "".join(line + "\n" for line in lines)
