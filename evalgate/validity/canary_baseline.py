"""Who recorded a canary baseline, and what comparing today's judge with it can tell.

A drift is only a judge moving when the baseline was recorded by the same judge. A baseline records
its source: `live` when every judge that recorded it was a model behind a live backend (`copilot`,
`openai`), `fixture` when one was a scripted or recorded judge (`command`, `replay`: evalgate cannot
see a model behind a command, so `--baseline-source live` says so for a command that wraps one). The
canary then says in one line what its comparison is: a replay of the baseline's own recordings, the
same judge again, another judge, or a live judge against a fixture baseline, which measures the
distance between the two judges rather than drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Source = Literal["live", "fixture", "unknown"]
LIVE_BACKENDS = ("copilot", "openai")
SOURCES = ("live", "fixture")


def backend_of(spec: str) -> str:
    """The backend name of a `--judge` spec (`copilot:gpt-5.4` -> `copilot`)."""
    return spec.strip().partition(":")[0]


def is_live(spec: str) -> bool:
    return backend_of(spec) in LIVE_BACKENDS


def source_of(specs: Sequence[str]) -> Source:
    """`live` when every judge is a live model backend, `fixture` otherwise, `unknown` for none."""
    if not specs:
        return "unknown"
    return "live" if all(is_live(s) for s in specs) else "fixture"


@dataclass(frozen=True)
class Baseline:
    """The provenance of a canary's recorded scores."""

    source: Source
    judges: tuple[str, ...] = ()  # the --judge specs that recorded it
    models: tuple[str, ...] = ()  # backend:model as those judges reported them
    recorded: str | None = None  # the date it was recorded (UTC, YYYY-MM-DD)
    prompt_version: str | None = None

    def describe(self) -> str:
        judges = ", ".join(self.judges) or "a judge it does not name"
        models = f" (model {', '.join(self.models)})" if self.models else ""
        when = f" on {self.recorded}" if self.recorded else ""
        kind = {"live": "a live judge", "fixture": "a fixture judge", "unknown": "an unknown judge"}[
            self.source
        ]
        return f"{kind}, {judges}{models}{when}"

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "models": list(self.models)}
        if self.recorded:
            out["recorded"] = self.recorded
        return out


def _strings(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise ValueError(f"{where}: expected a list of strings")
    return tuple(raw)


def read_baseline(raw: Mapping[str, Any]) -> Baseline:
    """The baseline of a canary.yml's top level (`recorded_with`, `baseline`, `prompt_version`);
    ValueError names the key that is wrong. A file written before baselines were recorded has only
    `recorded_with`: its source is inferred from those specs."""
    judges = _strings(raw.get("recorded_with"), "recorded_with")
    block = raw.get("baseline")
    if block is None:
        block = {}
    if not isinstance(block, dict):
        raise ValueError("baseline: expected a mapping with `source` (live or fixture)")
    source = block.get("source", source_of(judges))
    if source not in (*SOURCES, "unknown"):
        raise ValueError(f"baseline.source: expected live or fixture, got {source!r}")
    recorded = block.get("recorded")
    prompt = raw.get("prompt_version")
    return Baseline(
        source=source,
        judges=judges,
        models=_strings(block.get("models"), "baseline.models"),
        recorded=str(recorded) if recorded is not None else None,
        prompt_version=str(prompt) if prompt is not None else None,
    )


@dataclass(frozen=True)
class Comparison:
    """What a canary run compares, in a word (`kind`) and in sentences for its output (`notes`)."""

    kind: Literal["replay", "same judge", "another judge", "fixture baseline, live judge", "unknown baseline"]
    notes: tuple[str, ...]


def compare_with(
    baseline: Baseline, judges: Sequence[str], directory: str, *, prompt_now: str | None
) -> Comparison:
    """How this run's judges (empty: the baseline's own recordings are replayed) relate to the
    baseline, and a line for each thing a reader must know to read the drift."""
    notes: list[str] = []
    rebaseline = f"evalgate canary {directory} --rebaseline --judge {' --judge '.join(judges) or 'SPEC'}"
    kind: Any
    if not judges:
        kind = "replay"
        notes.append(
            "replaying the baseline's own recorded replies: this checks that today's prompts and evalgate "
            "still reproduce the baseline, not the judge itself"
        )
    elif baseline.source == "unknown":
        kind = "unknown baseline"
        notes.append(f"the baseline does not say who recorded it: re-record it with `{rebaseline}`")
    elif baseline.source == "fixture" and all(is_live(j) for j in judges):
        kind = "fixture baseline, live judge"
        now = ", ".join(judges)
        notes.append(
            f"the baseline was recorded by a fixture judge ({', '.join(baseline.judges)}), not by a live "
            f"model: the drift below is the distance between {now} and that fixture, not {now} moving "
            f"over time. Record a baseline with the live judge first: `{rebaseline}`"
        )
    elif tuple(judges) == baseline.judges:
        kind = "same judge"
    else:
        kind = "another judge"
        notes.append(
            f"the baseline was recorded by {baseline.describe()}; this run asks {', '.join(judges)}: the "
            "drift includes the change of judge"
        )
    if baseline.prompt_version and prompt_now and baseline.prompt_version != prompt_now:
        notes.append(
            f"the prompt version changed since the baseline was recorded ({baseline.prompt_version} -> "
            f"{prompt_now}): review the template change, then re-record with `{rebaseline}`"
        )
    return Comparison(kind, tuple(notes))
