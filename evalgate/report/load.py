"""A results file written by `evalgate check --format json` (or `jsonl`) -> the `Report` it renders.

The inverse of `Report.to_json` and `render_jsonl`: `load_report(path)` reads a file another job wrote
(a shard's artifact, the action's `evalgate-results.json`) back into the frozen result types, so
`evalgate merge` can combine shards and render or publish them with the same reporters as a run.

Derived values (`summary`, `skipped`) are not read back: the dataclasses compute them. A results file
comes from another job and may be damaged or hand-edited, so every field is type-checked and a bad one
is a `ReportLoadError` naming the file and the field (e.g. `a.json: results[3].dimensions[1].score:
expected an integer or null, got "4"`), never a traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

from evalgate.judgement import Evidence, JudgeScore
from evalgate.results import (
    AgainstBase,
    Decision,
    DimensionKind,
    DimensionResult,
    FileResult,
    Finding,
    GateOn,
    JudgeCall,
    Report,
    RubricRef,
    Rule,
    RuleCheck,
    Status,
    Verdict,
)
from evalgate.rubric import CalibrationStatus
from evalgate.usage import RunBudget

SHARD = re.compile(r"[1-9][0-9]*/[1-9][0-9]*")


class ReportLoadError(Exception):
    """A results file cannot be read back into a Report; the message names the file and field."""


class _Fields:
    """Typed access to one JSON object's fields; a wrong type raises with the field's path."""

    def __init__(self, raw: Any, where: str) -> None:
        if not isinstance(raw, dict):
            raise ReportLoadError(f"{where}: expected an object, got {_kind(raw)}")
        self.raw = raw
        self.where = where

    def at(self, name: str) -> str:
        """The path of a field: `a.json: results[2].score` (a `where` ending in ":" is a file)."""
        if not self.where:
            return name
        return f"{self.where} {name}" if self.where.endswith(":") else f"{self.where}.{name}"

    def _get(self, name: str, required: bool) -> Any:
        if name not in self.raw and required:
            raise ReportLoadError(f"{self.at(name)}: missing")
        return self.raw.get(name)

    def text(self, name: str) -> str:
        value = self._get(name, True)
        if not isinstance(value, str):
            raise ReportLoadError(f"{self.at(name)}: expected a string, got {_kind(value)}")
        return value

    def optional_text(self, name: str) -> str | None:
        value = self._get(name, False)
        if value is not None and not isinstance(value, str):
            raise ReportLoadError(f"{self.at(name)}: expected a string or null, got {_kind(value)}")
        return value

    def optional_int(self, name: str) -> int | None:
        value = self._get(name, False)
        # bool is an int in Python, but `true` is never a line number or a score
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ReportLoadError(f"{self.at(name)}: expected an integer or null, got {_kind(value)}")
        return value

    def integer(self, name: str) -> int:
        value = self.optional_int(name)
        if value is None:
            raise ReportLoadError(f"{self.at(name)}: expected an integer, got null")
        return value

    def optional_number(self, name: str) -> float | None:
        value = self._get(name, False)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ReportLoadError(f"{self.at(name)}: expected a number or null, got {_kind(value)}")
        return value

    def per_dimension(self, name: str, *, whole: bool) -> tuple[tuple[str, Any], ...]:
        """An object of dimension: number or null (`whole`: integers only), as (dimension, value)
        pairs; absent or null is none."""
        values = self.raw.get(name) or {}
        kinds: tuple[type, ...] = (int,) if whole else (int, float)
        if not isinstance(values, dict) or not all(
            v is None or (isinstance(v, kinds) and not isinstance(v, bool)) for v in values.values()
        ):
            expected = "integer" if whole else "number"
            raise ReportLoadError(f"{self.at(name)}: expected an object of dimension: {expected} or null")
        return tuple((str(k), v) for k, v in values.items())

    def flag(self, name: str, default: bool = False) -> bool:
        value = self._get(name, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ReportLoadError(f"{self.at(name)}: expected true or false, got {_kind(value)}")
        return value

    def items(self, name: str) -> list[tuple[str, Any]]:
        """A list field as (path of the item, item) pairs; absent means empty."""
        value = self._get(name, False)
        if value is None:
            return []
        if not isinstance(value, list):
            raise ReportLoadError(f"{self.at(name)}: expected a list, got {_kind(value)}")
        return [(f"{self.at(name)}[{i}]", item) for i, item in enumerate(value)]

    def texts(self, name: str) -> tuple[str, ...]:
        out = []
        for where, item in self.items(name):
            if not isinstance(item, str):
                raise ReportLoadError(f"{where}: expected a string, got {_kind(item)}")
            out.append(item)
        return tuple(out)

    def choice(self, name: str, allowed: tuple[str, ...]) -> str:
        value = self.text(name)
        if value not in allowed:
            raise ReportLoadError(f"{self.at(name)}: {value!r} is not one of {', '.join(allowed)}")
        return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {json.dumps(shown)}"
    return {dict: "an object", list: "a list", int: "an integer", float: "a number"}.get(type(value), "?")


def _finding(raw: Any, where: str) -> Finding:
    f = _Fields(raw, where)
    level = f.optional_text("level")  # absent: a finding; "notice": a note that did not lower the score
    if level not in (None, "notice"):
        raise ReportLoadError(f"{f.at('level')}: {level!r} is not one of notice")
    return Finding(
        line=f.integer("line"),
        message=f.text("message"),
        end_line=f.optional_int("end_line"),
        notice=level == "notice",
        rule=f.optional_text("rule") or "",
        existed=f.flag("existed"),
    )


def _evidence(raw: Any, where: str) -> Evidence:
    f = _Fields(raw, where)
    return Evidence(quote=f.text("quote"), verified=f.flag("verified"), line=f.optional_int("line"))


def _judge_score(raw: Any, where: str) -> JudgeScore:
    f = _Fields(raw, where)
    return JudgeScore(
        judge=f.text("judge"),
        score=f.optional_int("score"),
        error=f.optional_text("error"),
        position=f.optional_int("position"),
    )


def dimension_from_json(raw: Any, where: str = "dimension") -> DimensionResult:
    """One `DimensionResult.to_json()` object back into the dataclass."""
    f = _Fields(raw, where)
    kind: DimensionKind = "judge" if f.choice("kind", get_args(DimensionKind)) == "judge" else "deterministic"
    return DimensionResult(
        id=f.text("id"),
        kind=kind,
        status=Status(f.choice("status", tuple(s.value for s in Status))),
        score=f.optional_int("score"),
        findings=tuple(_finding(item, at) for at, item in f.items("findings")),
        evidence=tuple(_evidence(item, at) for at, item in f.items("evidence")),
        reasoning=f.optional_text("reasoning"),
        error=f.optional_text("error"),
        hard_fail=f.flag("hard_fail"),
        judge_scores=tuple(_judge_score(item, at) for at, item in f.items("judge_scores")),
    )


def _judge_call(raw: Any, where: str) -> JudgeCall:
    f = _Fields(raw, where)
    return JudgeCall(
        backend=f.text("backend"),
        model=f.text("model"),
        latency_ms=f.optional_number("latency_ms") or 0.0,
        tokens_in=f.optional_int("tokens_in"),
        tokens_out=f.optional_int("tokens_out"),
        cost_usd=f.optional_number("cost_usd"),
        overall_claimed=f.optional_text("overall_claimed"),
        cached=f.flag("cached"),
        calls=f.optional_int("calls") or 0,
        error=f.optional_text("error"),
        criteria_order=f.texts("criteria_order"),
        premium_requests=f.optional_number("premium_requests"),
        credits=f.optional_number("credits"),
        budget_refused=f.flag("budget_refused"),
    )


def _rule_check(raw: Any, where: str) -> RuleCheck:
    f = _Fields(raw, where)
    rule = Rule(f.choice("rule", tuple(r.value for r in Rule)))
    name, text = f.text("name"), f.text("text")
    detail = text.removeprefix(f"{name}: ")
    return RuleCheck(
        rule, name, f.flag("passed"), detail, f.optional_text("brief") or text, f.optional_text("dimension")
    )


def _pair(f: _Fields, name: str, keys: tuple[str, str]) -> tuple[int, int] | None:
    """`[a, b]` or `{keys[0]: a, keys[1]: b}` of two integers, or None when absent."""
    value = f.raw.get(name)
    if value is None:
        return None
    if isinstance(value, dict):
        value = [value.get(keys[0]), value.get(keys[1])]
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ReportLoadError(f"{f.at(name)}: expected two integers, got {_kind(f.raw.get(name))}")
    return value[0], value[1]


def _decision(raw: Any, where: str) -> Decision | None:
    if raw is None:
        return None
    f = _Fields(raw, where)
    means = f.raw.get("judge_means") or {}
    if not isinstance(means, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in means.values()
    ):
        raise ReportLoadError(f"{f.at('judge_means')}: expected an object of judge: number")
    mean_of = f.optional_text("mean_of") or "dimensions"
    return Decision(
        checks=tuple(_rule_check(item, at) for at, item in f.items("checks")),
        scale=_pair(f, "scale", ("min", "max")) or (1, 5),
        mean_of="judges" if mean_of == "judges" else "dimensions",
        judge_means=tuple((str(k), float(v)) for k, v in means.items()),
        criteria=_pair(f, "criteria", ("met", "total")),
        failing=f.texts("failing"),
    )


def _against_base(raw: Any, where: str) -> AgainstBase | None:
    """A file's `gate_on` object (written under `gate-on: new`) back into AgainstBase."""
    if raw is None:
        return None
    f = _Fields(raw, where)
    f.choice("mode", ("new",))
    return AgainstBase(
        base_sha=f.text("base"),
        base_path=f.optional_text("base_path"),
        new=f.integer("new_findings"),
        existing=f.integer("existing_findings"),
        base_mean=f.optional_number("base_mean"),
        base_scores=f.per_dimension("base_scores", whole=True),
        existed_rules=tuple(_rule_check(item, at) for at, item in f.items("existed_rules")),
        note=f.optional_text("note"),
        base_calls=tuple(_judge_call(item, at) for at, item in f.items("base_judges")),
    )


def _gate_on(raw: Any, where: str) -> GateOn | None:
    """The summary's `gate_on` (the run's mode, why, its base commit) back into GateOn."""
    if raw is None:
        return None
    f = _Fields(raw, where)
    mode = f.choice("mode", ("new", "all"))
    return GateOn("new" if mode == "new" else "all", f.text("why"), f.optional_text("base"))


def file_result_from_json(raw: Any, where: str = "result") -> FileResult:
    """One `FileResult.to_json()` object (or a JSONL line) back into the dataclass."""
    f = _Fields(raw, where)
    return FileResult(
        path=f.text("path"),
        verdict=Verdict(f.choice("verdict", tuple(v.value for v in Verdict))),
        mean=f.optional_number("mean"),
        hard_failures=f.texts("hard_failures"),
        error=f.optional_text("error"),
        dimensions=tuple(dimension_from_json(item, at) for at, item in f.items("dimensions")),
        seed=f.optional_int("seed"),
        judges=tuple(_judge_call(item, at) for at, item in f.items("judges")),
        warnings=f.texts("warnings"),
        band=f.optional_text("band"),
        reasons=f.texts("reasons"),
        decision=_decision(f.raw.get("decision"), f.at("decision")),
        against_base=_against_base(f.raw.get("gate_on"), f.at("gate_on")),
        wall_ms=f.optional_number("wall_ms"),
        uncounted=tuple(_rule_check(item, at) for at, item in f.items("uncounted")),
        over_budget=f.texts("over_budget"),
    )


def _calibration(raw: Any, where: str) -> CalibrationStatus | None:
    if raw is None:
        return None
    f = _Fields(raw, where)
    return CalibrationStatus(
        current=f.flag("current"),
        text=f.text("text"),
        record=f.optional_text("record"),
        date=f.optional_text("date"),
        required=f.flag("required"),
        kappa=tuple((k, None if v is None else float(v)) for k, v in f.per_dimension("kappa", whole=False)),
    )


def _budget(raw: Any, where: str) -> RunBudget | None:
    if raw is None:
        return None
    f = _Fields(raw, where)
    return RunBudget(
        calls=f.optional_int("calls"),
        usd=f.optional_number("usd"),
        on_budget="skip" if f.choice("on_budget", ("fail", "skip")) == "skip" else "fail",
        calls_made=f.optional_int("calls_made") or 0,
        usd_spent=f.optional_number("usd_spent") or 0.0,
        reached=f.flag("reached"),
        not_judged=f.optional_int("not_judged") or 0,
        unknown_cost_calls=f.optional_int("unknown_cost_calls") or 0,
    )


def _rubric(raw: Any, where: str) -> RubricRef:
    f = _Fields(raw, where)
    links = f.raw.get("mechanical") or {}
    if not isinstance(links, dict) or not all(isinstance(v, str) for v in links.values()):
        raise ReportLoadError(f"{f.at('mechanical')}: expected an object of judged dimension: check")
    return RubricRef(
        id=f.text("id"),
        version=f.text("version"),
        prompt=f.optional_text("prompt"),
        mechanical=tuple((str(k), v) for k, v in links.items()),
    )


def report_from_json(raw: Any, where: str = "") -> Report:
    """A `Report.to_json()` object back into a Report (notes come from `summary.notes`)."""
    f = _Fields(raw, where)
    summary = _Fields(f.raw.get("summary") or {}, f.at("summary"))
    agreement = f.raw.get("agreement") or {}
    if not isinstance(agreement, dict):
        raise ReportLoadError(f"{f.at('agreement')}: expected an object, got {_kind(agreement)}")
    shard = f.raw.get("shard")
    if shard is not None and not (isinstance(shard, str) and SHARD.fullmatch(shard)):
        raise ReportLoadError(f'{f.at("shard")}: expected a shard like "2/3", got {shard!r}')
    return Report(
        rubric=_rubric(f.raw.get("rubric"), f.at("rubric")),
        results=tuple(file_result_from_json(item, at) for at, item in f.items("results")),
        judges=f.texts("judges"),
        notes=summary.texts("notes"),
        agreement=agreement,
        shard=shard,
        gate_on=_gate_on(summary.raw.get("gate_on"), summary.at("gate_on")),
        wall_ms=summary.optional_number("wall_ms"),
        calibration=_calibration(summary.raw.get("calibration"), summary.at("calibration")),
        budget=_budget(summary.raw.get("budget"), summary.at("budget")),
    )


def _report_from_jsonl(text: str, source: str) -> Report:
    """JSONL: one result per line, each with the rubric; run-level judges and notes are not in it."""
    rubric: RubricRef | None = None
    results = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{source}: line {number}:"
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise ReportLoadError(f"{where} not JSON: {exc}") from None
        line_rubric = _rubric(raw.get("rubric") if isinstance(raw, dict) else None, f"{where} rubric")
        if rubric is not None and line_rubric != rubric:
            shown = f"{line_rubric.id} {line_rubric.version}"
            raise ReportLoadError(f"{where} rubric {shown} differs from the first line's")
        rubric = line_rubric
        results.append(file_result_from_json(raw, where))
    if rubric is None:
        raise ReportLoadError(f"{source}: no results (empty JSONL file)")
    return Report(rubric=rubric, results=tuple(results))


def load_report(path: str | Path) -> Report:
    """Read a results file (`--format json`, or `--format jsonl`) back into a Report.

    Raises ReportLoadError with the file and the field when it cannot be read or is not a results file.
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportLoadError(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportLoadError(f"{source}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        raw = json.loads(text)
    except ValueError:
        raw = None  # maybe JSONL: a JSON object per line
    if isinstance(raw, dict) and "results" in raw:
        return report_from_json(raw, source + ":")
    if raw is not None and not (isinstance(raw, dict) and "path" in raw):
        raise ReportLoadError(f"{source}: not an evalgate results file (no `results` list)")
    return _report_from_jsonl(text, source)
