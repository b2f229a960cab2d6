"""The JSON schemas of a pilot record and of `pilot-summary.json` (`evalgate schema pilot-record|...`).

Written out rather than derived from a model because the protocol's shape has keys made of data
(`judge_<label>`, `cell_<id>_trio_mean`, `<h>_delta_<name>`): those are pattern properties. The
published files in `evalgate/schemas/` are these functions' output for the knowledge-work rubric;
`tests/validity/test_pilot_schema.py` fails when they are out of date.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evalgate.rubric import Rubric, load_rubric

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_STR = {"type": "string"}
_BOOL_OR_NULL = {"type": ["boolean", "null"]}
_NUM_OR_NULL = {"type": ["number", "null"]}
_INT_OR_NULL = {"type": ["integer", "null"]}
_STRINGS = {"type": "array", "items": _STR}
# an amount summed over calls: its total (null when some call did not report it), the part known and
# how many calls did not report it
_AMOUNT = {
    "type": "object",
    "properties": {
        "total": _NUM_OR_NULL,
        "at_least": {"type": "number"},
        "unknown_calls": {"type": "integer", "minimum": 0},
    },
    "required": ["total", "at_least", "unknown_calls"],
    "additionalProperties": False,
}


def _object(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A closed object: every listed property required, nothing else allowed unless `extra` says."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
        **extra,
    }


def _judge_object(rubric: Rubric) -> dict[str, Any]:
    score = {"type": ["integer", "null"], "minimum": rubric.scale.min, "maximum": rubric.scale.max}
    bands = sorted(rubric.policy.bands.floors) if rubric.policy.bands else []
    return _object(
        {
            **{d.id: score for d in rubric.judged},
            "rationale": {"type": ["string", "null"]},
            "overall_verdict": {"enum": [*bands, None]},
            "mean": _NUM_OR_NULL,
        },
        description="One judge: the dimension scores flat, its rationale, the band of its mean, the mean.",
    )


def _evalgate_record_object() -> dict[str, Any]:
    judge = _object(
        {
            "backend": _STR,
            "called": {"type": "boolean"},
            "error": {"type": ["string", "null"]},
            "latency_ms": _INT_OR_NULL,
            "tokens_in": _INT_OR_NULL,
            "tokens_out": _INT_OR_NULL,
            "cost_usd": _NUM_OR_NULL,
        }
    )
    return _object(
        {
            "rubric": _object({"id": _STR, "version": _STR}),
            "judges": {"type": "object", "additionalProperties": judge},
            "quorum": _object(
                {"heard": {"type": "integer"}, "judges": {"type": "integer"}, "needed": {"type": "integer"}}
            ),
            "missing": _STRINGS,
            "notes": _STRINGS,
            "why_no_trio": {"type": ["string", "null"]},
        },
        description="evalgate's additions: none of the protocol's keys are renamed or moved.",
    )


def pilot_record_schema(rubric: Rubric | None = None) -> dict[str, Any]:
    """One line of `pilot.jsonl` for `rubric` (default: the knowledge-work pack)."""
    rubric = rubric or load_rubric("knowledge-work")
    record = _object(
        {
            "task_id": _STR,
            "cell_id": _STR,
            "model": _STR,
            "configuration": _STR,
            "candidate_response": {"type": ["string", "null"]},
            "candidate_latency_ms": _INT_OR_NULL,
            "candidate_tokens_in": _INT_OR_NULL,
            "candidate_tokens_out": _INT_OR_NULL,
            "candidate_cost_usd": _NUM_OR_NULL,
            "trio_mean": _NUM_OR_NULL,
            "trio_strict_pass": _BOOL_OR_NULL,
            "trio_critical_fail": _BOOL_OR_NULL,
            "manifest_anchor": _STR,
            "head_sha": {"type": ["string", "null"]},
            "trio_fail": _BOOL_OR_NULL,
            "evalgate": _evalgate_record_object(),
        },
        patternProperties={"^judge_[a-z0-9][a-z0-9_]*$": _judge_object(rubric)},
        minProperties=17,  # the required keys and at least one judge
    )
    return {
        "$schema": DRAFT,
        "title": f"evalgate pilot record ({rubric.id})",
        "description": "One (task, cell) of a trio pilot, in the protocol's per-cell record shape.",
        **record,
    }


def pilot_summary_schema() -> dict[str, Any]:
    """`pilot-summary.json`."""
    task = {
        "type": "object",
        "patternProperties": {
            "^cell_[A-Za-z0-9_-]+_trio_mean$": _NUM_OR_NULL,
            "^[a-z][a-z0-9]*_delta_[a-z][a-z0-9_]*$": _NUM_OR_NULL,
            "^[a-z][a-z0-9]*_directional_pass$": _BOOL_OR_NULL,
        },
        "additionalProperties": False,
    }
    aggregate = {
        "type": "object",
        "properties": {
            "critical_failures": {"type": "integer", "minimum": 0},
            "pilot_verdict": {"enum": ["PASS", "FAIL"]},
        },
        "patternProperties": {"^[a-z][a-z0-9]*_pass_count$": {"type": "integer", "minimum": 0}},
        "required": ["critical_failures", "pilot_verdict"],
        "additionalProperties": False,
    }
    hypothesis = _object(
        {
            "id": _STR,
            "name": _STR,
            "higher": _STR,
            "lower": _STR,
            "min_delta": _NUM_OR_NULL,
            "passing_tasks": _STRINGS,
            "pass": {"type": "boolean"},
        }
    )
    extras = _object(
        {
            "rubric": _object({"id": _STR, "version": _STR}),
            "manifest_anchor": _STR,
            "min_tasks": {"type": "integer"},
            "hypotheses": {"type": "array", "items": hypothesis},
            "records": {"type": "integer"},
            "strict_passes": {"type": "integer"},
            "trio_fails": _STRINGS,
            "critical": _STRINGS,
            "judge_errors": {"type": "integer"},
            "not_judged": {"type": "array", "items": _object({"cell": _STR, "why": _STR})},
            "known_cost_usd": {"type": "number"},
            "calls_without_cost": {"type": "integer"},
            "judge_usage": _object(
                {
                    "calls": {"type": "integer", "minimum": 0},
                    "tokens_in": _AMOUNT,
                    "tokens_out": _AMOUNT,
                    "cost_usd": _AMOUNT,
                    "latency_ms": {"type": "integer", "minimum": 0},
                },
                description="The judges' calls: a total is null unless every call reported it.",
            ),
            "reasons": _STRINGS,
        },
        description="evalgate's additions: none of the protocol's keys are renamed or moved.",
    )
    summary = _object(
        {
            "pilot_id": _STR,
            "execution_window_utc": {"type": "string", "pattern": "^\\S+ to \\S+$"},
            "total_cost_usd": _NUM_OR_NULL,
            "total_judge_calls": {"type": "integer", "minimum": 0},
            "total_candidate_calls": {"type": "integer", "minimum": 0},
            "results_per_task": {"type": "object", "additionalProperties": task},
            "aggregate": aggregate,
            "evalgate": extras,
        }
    )
    return {
        "$schema": DRAFT,
        "title": "evalgate pilot summary",
        "description": "pilot-summary.json of a trio pilot, in the protocol's aggregate summary shape.",
        **summary,
    }


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "pilot-record": pilot_record_schema,
    "pilot-summary": pilot_summary_schema,
}
