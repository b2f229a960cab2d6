"""The published pilot schemas: current, valid, and strict about the protocol's shape."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from evalgate.cli import main
from evalgate.validity.pilot_schema import SCHEMAS

PUBLISHED = Path(__file__).resolve().parents[2] / "evalgate" / "schemas"
KW_DIMS = ["completeness", "accuracy", "synthesis", "judgment", "actionability", "structure"]


def judge(score: int | None = 4) -> dict:
    mean = None if score is None else float(score)
    verdict = None if score is None else "PASS_STRONG"
    return {**dict.fromkeys(KW_DIMS, score), "rationale": None, "overall_verdict": verdict, "mean": mean}


RECORD = {
    "task_id": "task-1", "cell_id": "A", "model": "m", "configuration": "solo",
    "candidate_response": "text", "candidate_latency_ms": 10, "candidate_tokens_in": None,
    "candidate_tokens_out": None, "candidate_cost_usd": 0.5,
    "judge_opus": judge(), "judge_gpt": judge(), "judge_minimax": judge(None),
    "trio_mean": 4.0, "trio_strict_pass": True, "trio_critical_fail": False,
    "manifest_anchor": "pilot-2026-04-26-v1", "head_sha": None, "trio_fail": False,
    "evalgate": {
        "rubric": {"id": "knowledge-work", "version": "abc"}, "judges": {},
        "quorum": {"heard": 2, "judges": 3, "needed": 2}, "missing": [], "notes": [], "why_no_trio": None,
    },
}  # fmt: skip


@pytest.mark.parametrize("which", sorted(SCHEMAS))
def test_published_schema_is_current_and_printed_by_the_cli(which, capsys):
    on_disk = json.loads((PUBLISHED / f"{which}.schema.json").read_text(encoding="utf-8"))
    assert on_disk == SCHEMAS[which](), (
        f"regenerate: evalgate schema {which} > evalgate/schemas/{which}.schema.json"
    )
    jsonschema.Draft202012Validator.check_schema(on_disk)
    assert main(["schema", which]) == 0
    assert json.loads(capsys.readouterr().out) == on_disk


def _errors(instance: dict) -> list[str]:
    schema = json.loads((PUBLISHED / "pilot-record.schema.json").read_text(encoding="utf-8"))
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(instance)]


def test_the_record_schema_holds_the_protocol_shape():
    assert _errors(RECORD) == []
    renamed = {k if k != "trio_mean" else "trio_average": v for k, v in RECORD.items()}
    assert any("trio_mean" in e for e in _errors(renamed))
    nested = {k: v for k, v in RECORD.items() if not k.startswith("judge_")} | {"judges": [judge()]}
    assert any("judges" in e for e in _errors(nested))  # the old shape: judges in a list
    no_dim = RECORD | {"judge_gpt": {k: v for k, v in judge().items() if k != "synthesis"}}
    assert any("synthesis" in e for e in _errors(no_dim))
    assert _errors(RECORD | {"judge_gpt": judge() | {"overall_verdict": "PASS"}})  # bands only
    assert _errors(RECORD | {"judge_gpt": judge(6)})  # off the scale
    assert _errors(RECORD | {"candidate_latency_ms": 1.5})  # the protocol's int


def test_the_record_and_summary_shown_in_the_docs_hold_to_the_schemas():
    docs = (PUBLISHED.parents[1] / "docs" / "ensembles.md").read_text(encoding="utf-8")
    pilot_section = docs[docs.index("## `evalgate pilot") :]
    record, summary = (json.loads(b) for b in re.findall(r"```json\n(.*?)```", pilot_section, re.DOTALL)[:2])
    for which, shown in (("pilot-record", record), ("pilot-summary", summary)):
        jsonschema.validate(
            shown, json.loads((PUBLISHED / f"{which}.schema.json").read_text(encoding="utf-8"))
        )
    assert (record["trio_mean"], record["trio_fail"], record["trio_critical_fail"]) == (2.8333, True, False)
    assert summary["aggregate"]["pilot_verdict"] == "FAIL"
