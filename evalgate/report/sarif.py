"""SARIF 2.1.0 output (`--format sarif`) for code-scanning tools.

One run; the tool's rules are the rubric's dimensions; each finding is a result located by relative
path and start line. The level mirrors the gate's decision, it does not re-decide it: a finding in a
hard-failed dimension is `error`, in another failing dimension `warning`, otherwise `note`; a notice
(a finding that did not lower the score) is always `note`.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from evalgate.report.reasons import is_notice
from evalgate.results import FileResult, Report
from evalgate.rubric import Rubric

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "evalgate"


def _rules(report: Report, rubric: Rubric | None) -> list[dict[str, Any]]:
    if rubric is not None:
        return [
            {
                "id": d.id,
                "name": d.title,
                "shortDescription": {"text": d.title},
                "fullDescription": {"text": d.description.strip() or d.title},
                "properties": {"kind": d.kind, "hardFail": d.hard_fail},
            }
            for d in rubric.dimensions
        ]
    seen = dict.fromkeys(d.id for r in report.results for d in r.dimensions)
    return [{"id": rule_id, "shortDescription": {"text": rule_id}} for rule_id in seen]


def _level(result: FileResult, dimension_id: str) -> str:
    if dimension_id in result.hard_failures:
        return "error"
    if any(d.id == dimension_id for d in result.failing_dimensions):
        return "warning"
    return "note"


def _uri(path: str) -> str:
    # artifactLocation.uri is a URI reference relative to the checkout: forward slashes, escaped
    return quote(PurePosixPath(path.replace("\\", "/")).as_posix(), safe="/")


def to_sarif(report: Report, rubric: Rubric | None = None, tool_version: str = "0.1.0") -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (a JSON-ready dict)."""
    rules = _rules(report, rubric)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    for file_result in report.results:
        for dim in file_result.dimensions:
            for finding in dim.findings:
                region: dict[str, Any] = {"startLine": max(finding.line, 1)}
                if finding.end_line and finding.end_line > finding.line:
                    region["endLine"] = finding.end_line
                entry: dict[str, Any] = {
                    "ruleId": dim.id,
                    "level": "note" if is_notice(finding) else _level(file_result, dim.id),
                    "message": {"text": finding.message or dim.id},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": _uri(file_result.path), "uriBaseId": "%SRCROOT%"},
                                "region": region,
                            }
                        }
                    ],
                }
                if dim.id in index:
                    entry["ruleIndex"] = index[dim.id]
                if dim.score is not None:
                    entry["properties"] = {"score": dim.score}
                if file_result.against_base is not None:  # gate-on: new compared it with the base
                    entry["baselineState"] = "unchanged" if finding.existed else "new"
                results.append(entry)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": tool_version,
                        "rules": rules,
                    }
                },
                "automationDetails": {"id": f"evalgate/{report.rubric.id}/"},
                "properties": {"rubric": report.rubric.id, "rubricVersion": report.rubric.version},
                "results": results,
            }
        ],
    }


def write_sarif(report: Report, path: Path, rubric: Rubric | None = None) -> None:
    """Write the SARIF log to `path` (UTF-8 JSON)."""
    path.write_text(render_sarif(report, rubric), encoding="utf-8")


def render_sarif(report: Report, rubric: Rubric | None = None) -> str:
    """The SARIF log as JSON text, one result per line (`pretty_json`: the runs' results are level 4)."""
    from evalgate.report.jsonfile import pretty_json

    return pretty_json(to_sarif(report, rubric), expand=4)
