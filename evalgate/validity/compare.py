"""`evalgate compare A B`: pairwise preference, asked in both orders, counted only when they agree.

LLM judges tend to prefer whichever response they read first (or second). Each judge is therefore
asked twice per pair, once with (A, B) and once with (B, A). When both orders name the same document,
that is the judge's verdict; when they do not, the verdict is a tie and the judge was position-
inconsistent on that pair. The position-consistency rate (consistent judgements / judgements with both
replies usable) measures how much the judge's preference is about order rather than content.

Each call also lists the criteria in its own order, drawn from (seed, pair, judge, attempt): the
(B, A) call is the judge's second attempt at the pair, so it sees another order. The judge gives a
preference per criterion too; the report's position effect says, per criterion, whether its place in
the list moved how often that preference agreed with the judge's overall one (see `position`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evalgate.judging.backends import Backend, BackendError, UnknownBackendError
from evalgate.judging.backends.registry import make_backend
from evalgate.judging.inputs import InputItemError, judge_view
from evalgate.judging.prompt import PromptError, dimension_order, fence_token, render_template
from evalgate.rubric import Rubric, RubricError, load_rubric
from evalgate.validity.position import PositionEffect, orders_varied, position_effects
from evalgate.validity.position import render_text as position_text

PAIRWISE_TEMPLATE = "pairwise.md.j2"
Preference = Literal["A", "B", "tie"]
EXIT_OK, EXIT_JUDGE_ERROR, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class PairJudgement:
    """One judge on one pair: what it preferred in each order, and the verdict that counts."""

    judge: str
    forward: Preference | None  # asked (A, B); None if the reply was unusable
    backward: Preference | None  # asked (B, A), already mapped back to A / B
    error: str | None = None
    # per call, (A, B) then (B, A): the criteria in the order shown, and the preference on each
    # (mapped back to A / B; absent when the reply gave none)
    orders: tuple[tuple[str, ...], ...] = ()
    criteria: tuple[dict[str, Preference], ...] = ()

    @property
    def consistent(self) -> bool | None:
        """Whether both orders named the same outcome (None when either reply was unusable)."""
        if self.forward is None or self.backward is None:
            return None
        return self.forward == self.backward

    @property
    def verdict(self) -> Preference:
        """The preference that counts: the agreed one, else a tie."""
        return self.forward if self.consistent and self.forward is not None else "tie"

    def to_json(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "forward": self.forward,
            "backward": self.backward,
            "consistent": self.consistent,
            "verdict": self.verdict,
            "error": self.error,
            "criteria_orders": [list(o) for o in self.orders],
            "criteria": [dict(c) for c in self.criteria],
        }


@dataclass(frozen=True)
class PairResult:
    """Every judge's judgement of one pair (A, B)."""

    a: str
    b: str
    judgements: tuple[PairJudgement, ...]

    @property
    def verdict(self) -> Preference:
        """The majority of counted verdicts; equal counts are a tie."""
        a = sum(1 for j in self.judgements if j.verdict == "A")
        b = sum(1 for j in self.judgements if j.verdict == "B")
        return "A" if a > b else "B" if b > a else "tie"

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "verdict": self.verdict,
            "judgements": [j.to_json() for j in self.judgements],
        }


def consistency_rate(pairs: Sequence[PairResult]) -> float | None:
    """Consistent judgements / judgements with both orders usable, over every pair and judge."""
    usable = [j.consistent for p in pairs for j in p.judgements if j.consistent is not None]
    return sum(usable) / len(usable) if usable else None


Choice = Literal["1", "2", "tie"]
_MAX_TRIES = 64  # JSON objects tried from the reply's end: a long reply with many braces stays cheap


def _choice(value: object) -> Choice | None:
    text = str(value).strip().lower().removeprefix("response").strip()
    if text in ("1", "first"):
        return "1"
    if text in ("2", "second"):
        return "2"
    if text in ("tie", "neither", "equal"):
        return "tie"
    return None


def parse_reply(text: str) -> tuple[Choice | None, dict[str, Choice]]:
    """The overall preference and the per-criterion ones from the last JSON object in a reply that
    has `preferred`: `{"preferred": "1" | "2" | "tie", "criteria": {id: ...}}`; (None, {}) if absent."""
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"\{", text)][-_MAX_TRIES:]
    for start in reversed(starts):
        try:
            obj, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if not isinstance(obj, dict) or "preferred" not in obj:
            continue
        raw = obj.get("criteria")
        criteria = {}
        if isinstance(raw, dict):
            criteria = {str(k): c for k, v in raw.items() if (c := _choice(v)) is not None}
        return _choice(obj["preferred"]), criteria
    return None, {}


def parse_preference(text: str) -> Choice | None:
    """`{"preferred": "1" | "2" | "tie"}` from a reply (the last such JSON object wins); None if absent."""
    return parse_reply(text)[0]


def pairwise_order(
    rubric: Rubric, first: str, second: str, seed: int, *, judge: int = 0, attempt: int = 0
) -> tuple[str, ...]:
    """The criteria order of one pairwise call, drawn like a judge prompt's from (seed, the pair as
    shown, judge, attempt)."""
    shown = f"{first}\0{second}"
    return tuple(d.id for d in dimension_order(rubric, seed, shown, judge=judge, attempt=attempt))


def render_pairwise_prompt(
    rubric: Rubric, first: str, second: str, seed: int, *, judge: int = 0, attempt: int = 0
) -> str:
    """The pairwise prompt with `first` as Response 1 and `second` as Response 2 (each fenced), the
    criteria in this call's order (`pairwise_order`)."""
    fence_1 = fence_token(first, seed, avoid=[second])
    fence_2 = fence_token(second, seed + 1, avoid=[first, fence_1])
    by_id = {d.id: d for d in rubric.judged}
    order = pairwise_order(rubric, first, second, seed, judge=judge, attempt=attempt)
    variables = {
        "instructions": rubric.judging.instructions.strip(),
        "dimensions": [
            {"id": i, "title": by_id[i].title, "description": by_id[i].description.strip()} for i in order
        ],
        "first": first,
        "second": second,
        "fence_1": fence_1,
        "fence_2": fence_2,
    }
    text, _ = render_template(PAIRWISE_TEMPLATE, variables)
    return text


def _ask(backend: Backend, prompt: str) -> tuple[Choice, dict[str, Choice]]:
    try:
        reply = backend.complete(prompt)
    except BackendError:
        raise
    except Exception as exc:  # a backend bug is this judgement's error, not a crash
        raise BackendError(f"{type(exc).__name__}: {exc}") from exc
    preference, criteria = parse_reply(reply.text)
    if preference is None:
        raise BackendError(f"no usable preference in the reply: {reply.text.strip()[:80]!r}")
    return preference, criteria


def judge_pair(
    rubric: Rubric, a_text: str, b_text: str, backend: Backend, *, seed: int = 0, judge: int = 0
) -> PairJudgement:
    """Ask one judge about (A, B) and then (B, A), its second attempt at the pair; never raises.
    `judge` is its place in the list of judges (it helps decide each call's criteria order)."""
    label = f"{backend.name}:{backend.model}"
    to_ab: dict[str, Preference] = {"1": "A", "2": "B", "tie": "tie"}
    swapped: dict[str, Preference] = {"1": "B", "2": "A", "tie": "tie"}
    results: list[Preference | None] = []
    errors: list[str] = []
    orders: list[tuple[str, ...]] = []
    criteria: list[dict[str, Preference]] = []
    calls = ((a_text, b_text, to_ab), (b_text, a_text, swapped))
    for attempt, (first, second, mapping) in enumerate(calls):
        orders.append(pairwise_order(rubric, first, second, seed, judge=judge, attempt=attempt))
        try:
            prompt = render_pairwise_prompt(rubric, first, second, seed, judge=judge, attempt=attempt)
            preference, per_criterion = _ask(backend, prompt)
        except (BackendError, PromptError) as exc:
            results.append(None)
            criteria.append({})
            errors.append(str(exc))
            continue
        results.append(mapping[preference])
        criteria.append({c: mapping[v] for c, v in per_criterion.items() if c in orders[-1]})
    return PairJudgement(
        label, results[0], results[1], "; ".join(errors) or None, tuple(orders), tuple(criteria)
    )


def position_effect(pairs: Sequence[PairResult]) -> list[PositionEffect]:
    """Per criterion: how often its preference agreed with the judge's overall one for the pair (1
    agrees, 1/2 a tie, 0 the other response), by its place in the call's list. Only judgements whose
    overall preference held in both orders count: a tie orients nothing."""
    agreement = {"same": 1.0, "tie": 0.5, "other": 0.0}
    observations = []
    for pair in pairs:
        for j in pair.judgements:
            if j.verdict == "tie":
                continue
            for order, chosen in zip(j.orders, j.criteria, strict=False):
                for position, criterion in enumerate(order, 1):
                    value = chosen.get(criterion)
                    if value is None:
                        continue
                    side = "tie" if value == "tie" else "same" if value == j.verdict else "other"
                    observations.append((criterion, position, agreement[side]))
    return position_effects(observations)


def _read(path: str, rubric: Rubric) -> str:
    """A compared file's text as a judge sees it (only the named parts, for structured rubrics)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputItemError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return judge_view(rubric, text, path) if rubric.inputs is not None else text


def compare(
    pairs: Sequence[tuple[str, str]], rubric: Rubric, judges: Sequence[Backend], *, seed: int = 0
) -> list[PairResult]:
    """Every judge on every pair, both orders. Raises InputItemError for an unreadable file."""
    out = []
    for a, b in pairs:
        a_text, b_text = _read(a, rubric), _read(b, rubric)
        asked = tuple(judge_pair(rubric, a_text, b_text, j, seed=seed, judge=i) for i, j in enumerate(judges))
        out.append(PairResult(a, b, asked))
    return out


def report_json(pairs: Sequence[PairResult]) -> dict[str, Any]:
    """The machine-readable comparison report."""
    rate = consistency_rate(pairs)
    effects = position_effect(pairs)
    return {
        "pairs": [p.to_json() for p in pairs],
        "position_consistency": None if rate is None else round(rate, 4),
        "judgements": sum(len(p.judgements) for p in pairs),
        "position_effect": {
            "value": "agreement of the criterion's preference with the judge's overall preference",
            "varied": orders_varied(effects),
            "criteria": [e.to_json() for e in effects],
        },
    }


def report_text(pairs: Sequence[PairResult]) -> str:
    """One line per pair and judge, then the consistency rate."""
    lines = []
    for p in pairs:
        lines.append(f"{p.a} vs {p.b}: {p.verdict}")
        for j in p.judgements:
            state = {True: "consistent", False: "inconsistent -> tie", None: "unusable"}[j.consistent]
            lines.append(f"  {j.judge}: (A,B) {j.forward}, (B,A) {j.backward} [{state}] -> {j.verdict}")
            if j.error:
                lines.append(f"    error: {j.error}")
    rate = consistency_rate(pairs)
    lines.append("position consistency: " + ("n/a" if rate is None else f"{rate:.0%}"))
    lines.extend(position_text(position_effect(pairs), "agreement with the judge's overall preference"))
    return "\n".join(lines) + "\n"


def cmd_compare(args: argparse.Namespace) -> int:
    """Handler for `evalgate compare A B [A2 B2 ...] --judge SPEC`."""
    if len(args.paths) < 2 or len(args.paths) % 2:
        print("evalgate compare: give files in pairs: A B [A2 B2 ...]", file=sys.stderr)
        return EXIT_USAGE
    if not args.judge:
        print("evalgate compare: give at least one --judge SPEC", file=sys.stderr)
        return EXIT_USAGE
    try:
        rubric = load_rubric(args.rubric)
        judges = [make_backend(spec, timeout=args.judge_timeout) for spec in args.judge]
        pairs = list(zip(args.paths[::2], args.paths[1::2], strict=True))
        results = compare(pairs, rubric, judges, seed=args.seed)
    except (RubricError, UnknownBackendError, ValueError) as exc:
        print(f"evalgate compare: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out = json.dumps(report_json(results), indent=2) + "\n" if args.format == "json" else report_text(results)
    sys.stdout.write(out)
    failed = any(j.error for p in results for j in p.judgements)
    return EXIT_JUDGE_ERROR if failed else EXIT_OK


def register(subparsers: Any, help_text: str) -> None:
    """Add `compare` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    p = subparsers.add_parser("compare", help=help_text)
    p.add_argument("paths", nargs="+", metavar="FILE", help="files in pairs: A B [A2 B2 ...]")
    p.add_argument("--judge", action="append", metavar="SPEC", help="judge backend (repeatable)")
    p.add_argument(
        "--rubric", default="research-loop", help="rubric whose judged dimensions are the criteria"
    )
    p.add_argument("--seed", type=int, default=0, help="seed for the fence tokens (recorded)")
    p.add_argument("--judge-timeout", type=float, default=600.0, help="seconds per judge call")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_compare)
