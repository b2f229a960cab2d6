"""`evalgate compare A B`: pairwise preference, asked in both orders, counted only when they agree.

LLM judges tend to prefer whichever response they read first (or second). Each judge is therefore
asked twice per pair, once with (A, B) and once with (B, A). When both orders name the same document,
that is the judge's verdict; when they do not, the verdict is a tie and the judge was position-
inconsistent on that pair. The position-consistency rate (consistent judgements / judgements with both
replies usable) measures how much the judge's preference is about order rather than content.
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

from evalgate.judging.backends import Backend, BackendError, UnknownBackendError, make_backend
from evalgate.judging.inputs import InputItemError, judge_view
from evalgate.judging.prompt import PromptError, fence_token, render_template
from evalgate.rubric import Rubric, RubricError, load_rubric

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


def parse_preference(text: str) -> Literal["1", "2", "tie"] | None:
    """`{"preferred": "1" | "2" | "tie"}` from a reply (the last JSON object wins); None if absent."""
    for raw in reversed(re.findall(r"\{[^{}]*\}", text)):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        value = str(obj.get("preferred", "")).strip().lower() if isinstance(obj, dict) else ""
        value = value.removeprefix("response").strip()
        if value in ("1", "first"):
            return "1"
        if value in ("2", "second"):
            return "2"
        if value in ("tie", "neither", "equal"):
            return "tie"
    return None


def render_pairwise_prompt(rubric: Rubric, first: str, second: str, seed: int) -> str:
    """The pairwise prompt with `first` as Response 1 and `second` as Response 2 (each fenced)."""
    fence_1 = fence_token(first, seed, avoid=[second])
    fence_2 = fence_token(second, seed + 1, avoid=[first, fence_1])
    variables = {
        "instructions": rubric.judging.instructions.strip(),
        "dimensions": [
            {"id": d.id, "title": d.title, "description": d.description.strip()} for d in rubric.judged
        ],
        "first": first,
        "second": second,
        "fence_1": fence_1,
        "fence_2": fence_2,
    }
    text, _ = render_template(PAIRWISE_TEMPLATE, variables)
    return text


def _ask(backend: Backend, prompt: str) -> Literal["1", "2", "tie"]:
    try:
        reply = backend.complete(prompt)
    except BackendError:
        raise
    except Exception as exc:  # a backend bug is this judgement's error, not a crash
        raise BackendError(f"{type(exc).__name__}: {exc}") from exc
    preference = parse_preference(reply.text)
    if preference is None:
        raise BackendError(f"no usable preference in the reply: {reply.text.strip()[:80]!r}")
    return preference


def judge_pair(rubric: Rubric, a_text: str, b_text: str, backend: Backend, *, seed: int = 0) -> PairJudgement:
    """Ask one judge about (A, B) and then (B, A); never raises."""
    label = f"{backend.name}:{backend.model}"
    to_ab: dict[str, Preference] = {"1": "A", "2": "B", "tie": "tie"}
    swapped: dict[str, Preference] = {"1": "B", "2": "A", "tie": "tie"}
    results: list[Preference | None] = []
    errors: list[str] = []
    for first, second, mapping in ((a_text, b_text, to_ab), (b_text, a_text, swapped)):
        try:
            results.append(mapping[_ask(backend, render_pairwise_prompt(rubric, first, second, seed))])
        except (BackendError, PromptError) as exc:
            results.append(None)
            errors.append(str(exc))
    return PairJudgement(label, results[0], results[1], "; ".join(errors) or None)


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
        out.append(PairResult(a, b, tuple(judge_pair(rubric, a_text, b_text, j, seed=seed) for j in judges)))
    return out


def report_json(pairs: Sequence[PairResult]) -> dict[str, Any]:
    """The machine-readable comparison report."""
    rate = consistency_rate(pairs)
    return {
        "pairs": [p.to_json() for p in pairs],
        "position_consistency": None if rate is None else round(rate, 4),
        "judgements": sum(len(p.judgements) for p in pairs),
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
