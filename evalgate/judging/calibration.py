"""A stored calibration (`evalgate calibrate --record FILE`) and what it says about a run's judges.

The record holds what a calibration measured: when, which judges (specs and the models they
reported), the rubric id and version and the prompt version (the template set's hash), the gold set
(items, annotators), and per judged dimension the judge's agreement with the human labels (exact,
within one, Cohen's and the two weighted kappas). `calibration_status` reads it for a run (the
`calibration:` key) and says whether the run's judges are calibrated: the record must be of the same
rubric version, prompt version and judges, and meet the floors that apply now (the rubric's
`calibration:` floors, or the configuration's `calibration-floors`), since a record that met looser
floors does not vouch for stricter ones. Anything else is reported, in the words every report
prints, as "not calibrated ...: scores are a signal, not a measurement".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgate.rubric import CalibrationFloors, CalibrationStatus, KappaKind, Rubric
from evalgate.yamlsafe import Refused, read_text_file, refusal_reason

RECORD_KIND = "evalgate-calibration"
RECORD_VERSION = 1
SIGNAL = "scores are a signal, not a measurement"
KAPPA_KEYS: dict[KappaKind, str] = {
    "cohen": "cohen",
    "linear": "weighted_linear",
    "quadratic": "weighted_quadratic",
}


class RecordError(Exception):
    """A calibration record cannot be read; the message names the file and the field."""


@dataclass(frozen=True)
class DimensionFigures:
    """A judged dimension's figures in a record: pairs compared, agreement, and each kappa."""

    dimension: str
    items: int
    exact: float | None
    within_one: float | None
    kappas: Mapping[str, float | None]  # "cohen", "weighted_linear", "weighted_quadratic"

    def kappa(self, kind: KappaKind) -> float | None:
        return self.kappas.get(KAPPA_KEYS[kind])


@dataclass(frozen=True)
class CalibrationRecord:
    """What a calibration measured, as stored."""

    date: str
    rubric: str
    rubric_version: str
    prompt_version: str | None
    judges: tuple[str, ...]  # the --judge specs, in order
    models: tuple[str, ...]  # the models the judges reported
    items: int
    pairs: int  # judged (item, dimension) pairs the judge was held to
    exact: float | None  # pooled over the pairs
    within_one: float | None
    dimensions: tuple[DimensionFigures, ...]


def below_floors(
    floors: CalibrationFloors,
    kind: KappaKind,
    exact: float | None,
    within_one: float | None,
    dimensions: Sequence[DimensionFigures],
) -> list[str]:
    """Every floor the figures do not meet, in words (empty: the calibration passes). A kappa that is
    undefined (the labels and the scores never varied on that dimension) cannot be held to a floor and
    is not counted against it; exact agreement still is."""
    missed = []
    if exact is None or exact < floors.exact:
        missed.append(f"exact agreement {_share(exact)} is below {floors.exact:.0%}")
    if within_one is None or within_one < floors.within_one:
        missed.append(f"agreement within one point {_share(within_one)} is below {floors.within_one:.0%}")
    for d in dimensions:
        value = d.kappa(kind)
        if value is not None and value < floors.kappa:
            missed.append(f"{d.dimension}: kappa ({kind}) {value:.2f} is below {floors.kappa:.2f}")
    return missed


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def read_record(path: str | Path) -> CalibrationRecord:
    """Read and check a record file; RecordError naming the file and field otherwise."""
    where = str(path)
    try:
        raw: Any = json.loads(read_text_file(Path(path)))
    except FileNotFoundError:
        raise RecordError(f"{where}: not found") from None
    except (OSError, Refused) as exc:
        raise RecordError(f"{where}: cannot read: {refusal_reason(exc)}") from None
    except ValueError as exc:
        raise RecordError(f"{where}: not valid JSON: {exc}") from None
    if not isinstance(raw, dict) or raw.get("kind") != RECORD_KIND:
        raise RecordError(f'{where}: not a calibration record (no "kind": "{RECORD_KIND}")')
    try:
        rubric = raw["rubric"]
        dims = tuple(
            DimensionFigures(
                str(d["dimension"]),
                int(d["items"]),
                _fraction(d.get("exact")),
                _fraction(d.get("within_one")),
                {k: _kappa(d.get("kappa", {}).get(k)) for k in KAPPA_KEYS.values()},
            )
            for d in raw["dimensions"]
        )
        overall = raw["overall"]
        return CalibrationRecord(
            date=str(raw["date"]),
            rubric=str(rubric["id"]),
            rubric_version=str(rubric["version"]),
            prompt_version=None if rubric.get("prompt") is None else str(rubric["prompt"]),
            judges=tuple(str(j["spec"]) for j in raw["judges"]),
            models=tuple(str(m) for j in raw["judges"] for m in j.get("models", [])),
            items=int(raw["gold"]["items"]),
            pairs=int(overall["items"]),
            exact=_fraction(overall.get("exact")),
            within_one=_fraction(overall.get("within_one")),
            dimensions=dims,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RecordError(
            f"{where}: not a calibration record this version reads ({type(exc).__name__}: {exc})"
        ) from None


def _fraction(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"{value!r} is not a share between 0 and 1")
    return float(value)


def _kappa(value: Any) -> float | None:
    if value is None or isinstance(value, dict):  # {"value": null, "reason": ...}: undefined
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        raise ValueError(f"{value!r} is not a kappa")
    return float(value)


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _day(date: str) -> str:
    return date[:10]


def calibration_status(
    path: str,
    rubric: Rubric,
    prompt_version: str | None,
    judges: Sequence[str],
    *,
    floors: CalibrationFloors | None = None,
    required: bool = False,
) -> CalibrationStatus:
    """What the record at `path` says about a run of `judges` under `rubric` and `prompt_version`."""
    floors = floors or rubric.calibration
    kind = floors.kind_for(rubric.scale)

    def signal(why: str, record: CalibrationRecord | None = None) -> CalibrationStatus:
        return CalibrationStatus(
            current=False,
            text=why,
            record=path,
            date=record.date if record else None,
            required=required,
            kappa=tuple((d.dimension, d.kappa(kind)) for d in record.dimensions) if record else (),
        )

    try:
        record = read_record(path)
    except RecordError as exc:
        return signal(f"not calibrated: {exc}: {SIGNAL}")
    was = f"the calibration on {_day(record.date)}"
    recorded = (record.rubric, record.rubric_version, record.prompt_version)
    if recorded != (rubric.id, rubric.version, prompt_version):
        return signal(
            f"not calibrated for this rubric and prompt version: {SIGNAL} ({was} was of {record.rubric} "
            f"version {record.rubric_version}, prompt {record.prompt_version}; this run: {rubric.id} "
            f"version {rubric.version}, prompt {prompt_version})",
            record,
        )
    if sorted(record.judges) != sorted(judges):
        return signal(
            f"not calibrated for these judges: {SIGNAL} ({was} was of {', '.join(record.judges)}; this run: "
            f"{', '.join(judges)})",
            record,
        )
    missed = below_floors(floors, kind, record.exact, record.within_one, record.dimensions)
    if missed:
        return signal(f"{was} did not meet its floors ({'; '.join(missed)}): {SIGNAL}", record)
    kappas = ", ".join(f"{d.dimension} {_figure(d.kappa(kind))}" for d in record.dimensions)
    return CalibrationStatus(
        current=True,
        text=(
            f"calibrated on {_day(record.date)} against {record.items} gold item(s) "
            f"({', '.join(record.judges)}): kappa ({kind}) {kappas}; exact agreement "
            f"{_share(record.exact)}, within one {_share(record.within_one)}"
        ),
        record=path,
        date=record.date,
        required=required,
        kappa=tuple((d.dimension, d.kappa(kind)) for d in record.dimensions),
    )


def record_data(
    *,
    date: str,
    rubric: Mapping[str, str | None],
    judges: Sequence[tuple[str, Sequence[str]]],
    gold: Mapping[str, Any],
    floors: Mapping[str, Any],
    passed: bool,
    failures: Sequence[str],
    overall: DimensionFigures,
    dimensions: Sequence[DimensionFigures],
    human_agreement: Mapping[str, Any],
) -> dict[str, Any]:
    """A calibration record as `read_record` reads it: the format lives here, with its reader."""

    def figures(d: DimensionFigures) -> dict[str, Any]:
        return {
            "dimension": d.dimension,
            "items": d.items,
            "exact": _rounded(d.exact),
            "within_one": _rounded(d.within_one),
            "kappa": {k: _rounded(v) for k, v in d.kappas.items()},
        }

    return {
        "kind": RECORD_KIND,
        "version": RECORD_VERSION,
        "date": date,
        "rubric": dict(rubric),
        "judges": [{"spec": spec, "models": list(models)} for spec, models in judges],
        "gold": dict(gold),
        "floors": dict(floors),
        "passed": passed,
        "failures": list(failures),
        "overall": figures(overall),
        "dimensions": [figures(d) for d in dimensions],
        "human_agreement": dict(human_agreement),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
