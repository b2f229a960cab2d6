"""SARIF 2.1.0: one run, rules from the rubric, results with locations and gate-derived levels."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from evalgate.report.sarif import to_sarif, write_sarif
from evalgate.rubric import load_rubric
from tests.support.reports import sample_report

# The parts of the SARIF 2.1.0 schema (OASIS sarif-schema-2.1.0.json) this output relies on, restated
# here: no package on the pinned test dependencies ships the official schema file.
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "rules": {
                                        "type": "array",
                                        "items": {"type": "object", "required": ["id"]},
                                    }
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {"type": "object", "required": ["text"]},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation"],
                                                "properties": {
                                                    "region": {
                                                        "type": "object",
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1}
                                                        },
                                                    }
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_structure_rules_and_levels(tmp_path: Path) -> None:
    rubric = load_rubric("research-loop")
    log = to_sarif(sample_report(), rubric)
    jsonschema.validate(log, SARIF_SUBSET)
    [run] = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "evalgate"
    assert [r["id"] for r in rules] == [d.id for d in rubric.dimensions]
    by_line = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r for r in run["results"]}
    assert by_line[12]["level"] == "error"  # hard-failed dimension
    assert by_line[55]["level"] == "warning"  # failing, not a hard fail
    assert by_line[55]["locations"][0]["physicalLocation"]["region"]["endLine"] == 57
    assert rules[by_line[12]["ruleIndex"]]["id"] == "acronym_expansion"
    uri = by_line[12]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "docs/research/bad%7Cname.md"
    out = tmp_path / "results.sarif"
    write_sarif(sample_report(), out, rubric)
    assert json.loads(out.read_text())["version"] == "2.1.0"


def test_sarif_without_rubric_uses_dimension_ids() -> None:
    log = to_sarif(sample_report())
    ids = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    assert "acronym_expansion" in ids and len(ids) == len(set(ids))
    jsonschema.validate(log, SARIF_SUBSET)
