"""JSON and JSONL renderings of a Report (the machine-readable contract)."""

from __future__ import annotations

import json

from evalgate.results import Report


def render_json(report: Report) -> str:
    """`{"rubric": {...}, "results": [...], "summary": {...}}`, stable key order."""
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def render_jsonl(report: Report) -> str:
    """One result per line, each carrying the rubric id and version so lines stand alone."""
    rubric = {"id": report.rubric.id, "version": report.rubric.version}
    lines = [json.dumps({"rubric": rubric, **r.to_json()}, ensure_ascii=False) for r in report.results]
    return "".join(line + "\n" for line in lines)
