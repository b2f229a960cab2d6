"""A gold set: hand-labelled items and their labels, by one annotator or several.

A gold directory holds items and their human labels in either or both of two places:

- `labels.yml`: `rubric:`, optionally `annotators:` (names, the first one's labels are each item's
  `judged:`), and `items:`, each with a `file`, `judged:` labels, the `deterministic:` scores the
  structural checks must compute, and `annotations:` (further annotators' labels, by name);
- the items themselves, for rubrics whose inputs are YAML items (knowledge-work, support-reply):
  an item's inline `labels:` are its first annotator's, a score on a Likert rubric, or
  `{met: true|false, evidence: ...}` on a binary one (met is the scale's top, not met its bottom).
  A `labels.yml` beside them may add other annotators' labels for them (`annotations:`), never a
  second first annotation.

The rubric is the one named (`--rubric`), else `labels.yml`'s `rubric:`, else the shipped pack the
directory is named after. Every problem is a GoldError naming the file and the entry.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evalgate.judging.agreement import DimensionAgreement, agreement
from evalgate.rubric import Rubric, RubricError, load_rubric, pack_names
from evalgate.yamlsafe import safe_load

LABELS_FILE = "labels.yml"
FIRST = "first annotator"  # the first annotator's name when `annotators:` does not give one
ITEM_SUFFIXES = (".yml", ".yaml")


class GoldError(Exception):
    """The gold set cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class GoldItem:
    """One labelled item: its file (relative to the gold directory) and the human labels."""

    file: str
    judged: dict[str, int]  # the first annotator's labels
    deterministic: dict[str, int] = field(default_factory=dict)
    structural_verdict: str | None = None  # the verdict over the structural checks alone
    annotations: dict[str, dict[str, int]] = field(default_factory=dict)  # further annotators' labels

    def by_annotator(self, first: str = FIRST) -> dict[str, dict[str, int]]:
        """Every annotator's labels for this item, the first annotator's first."""
        return {first: self.judged, **self.annotations}


@dataclass(frozen=True)
class GoldSet:
    """A gold directory's labels for one rubric."""

    directory: Path
    rubric: str
    items: tuple[GoldItem, ...]
    annotators: tuple[str, ...] = (FIRST,)  # the first one's labels are each item's `judged`


def score_mapping(raw: Any, where: str, error: type[GoldError] = GoldError) -> dict[str, int]:
    """A `{dimension id: integer score}` mapping from YAML (None is empty), else `error` at `where`."""
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in raw.values()
    ):
        raise error(f"{where}: expected a mapping of dimension id to an integer score")
    return {str(k): int(v) for k, v in raw.items()}


def _read_yaml(path: Path, error: type[GoldError]) -> Any:
    try:
        return safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise error(f"{path}: cannot read: {exc}") from None


def read_item_list(
    path: Path, *, missing: str, error: type[GoldError] = GoldError
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """Read a YAML mapping whose `items` list names a `file` each: (top level, [(where, item)]).

    Shared by the gold labels and the canary fixtures; `missing` says what to do when the file is absent.
    """
    if not path.exists():
        raise error(f"{path}: {missing}")
    raw = _read_yaml(path, error)
    if not isinstance(raw, dict) or not isinstance(raw.get("items"), list):
        raise error(f"{path}: expected a mapping with `rubric` and a list of `items`")
    entries = []
    for index, entry in enumerate(raw["items"]):
        where = f"{path}: items[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise error(f"{where}: each item needs a `file`")
        entries.append((where, entry))
    return raw, entries


def _annotators(raw: Mapping[str, Any], where: str) -> tuple[str, ...]:
    names = raw.get("annotators")
    if names is None:
        return (FIRST,)
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise GoldError(f"{where}: annotators: expected a list of names, the first annotator's first")
    if len(set(names)) != len(names):
        raise GoldError(f"{where}: annotators: a name is listed twice")
    return tuple(names)


def _annotations(raw: Any, where: str, annotators: Sequence[str]) -> dict[str, dict[str, int]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise GoldError(f"{where}: expected a mapping of annotator name to labels")
    out = {}
    for name, labels in raw.items():
        if name not in annotators[1:]:
            listed = ", ".join(annotators[1:]) or "none besides the first"
            raise GoldError(f"{where}.{name}: not one of the further annotators in `annotators:` ({listed})")
        out[str(name)] = score_mapping(labels, f"{where}.{name}")
    return out


def _inline_labels(raw: Any, where: str, rubric: Rubric) -> dict[str, int]:
    """An item's own `labels:`: scores, or `{met: bool}` criteria on a binary rubric."""
    if not isinstance(raw, dict):
        raise GoldError(f"{where}: expected a mapping of dimension id to a label")
    out = {}
    for dim, label in raw.items():
        if isinstance(label, dict) and isinstance(label.get("met"), bool):
            out[str(dim)] = rubric.scale.max if label["met"] else rubric.scale.min
        elif isinstance(label, int) and not isinstance(label, bool):
            out[str(dim)] = label
        else:
            raise GoldError(f"{where}.{dim}: expected a score or {{met: true|false}}, got {label!r}")
    return out


def _check_labels(item: GoldItem, rubric: Rubric, where: str) -> None:
    """Every label names one of the rubric's dimensions of the right kind and lies on its scale."""
    judged = {d.id for d in rubric.judged}
    deterministic = {d.id for d in rubric.deterministic}
    low, high = rubric.scale.min, rubric.scale.max
    for annotator, labels in item.by_annotator().items():
        for dim, score in labels.items():
            if dim not in judged:
                raise GoldError(f"{where}: {annotator}: {dim} is not a judged dimension of {rubric.id}")
            if not low <= score <= high:
                raise GoldError(f"{where}: {annotator}: {dim}: {score} is outside the scale {low}-{high}")
    for dim in item.deterministic:
        if dim not in deterministic:
            raise GoldError(f"{where}: deterministic: {dim} is not a deterministic dimension of {rubric.id}")


def _rubric_name(directory: Path, named: str | None, listed: Any, has_file: bool) -> str:
    if named:
        return named
    if isinstance(listed, str) and listed:
        return listed
    if directory.resolve().name in pack_names():
        return directory.resolve().name
    if has_file:  # a labels file without `rubric:` was written for research-loop, the first pack
        return "research-loop"
    raise GoldError(
        f"{directory}: no rubric named: give --rubric, or a {LABELS_FILE} with `rubric:` (or name the "
        f"directory after a pack: {', '.join(pack_names())})"
    )


def load_gold(directory: str | Path, rubric: str | None = None) -> GoldSet:
    """A gold directory's items and labels (see the module's doc); `rubric` overrides the one it names."""
    root = Path(directory)
    if not root.is_dir():
        raise GoldError(f"{root}: no such gold directory (a directory with {LABELS_FILE} or labelled items)")
    labels_path = root / LABELS_FILE
    raw: dict[str, Any] = {}
    entries: list[tuple[str, dict[str, Any]]] = []
    if labels_path.exists():
        raw, entries = read_item_list(labels_path, missing="")
    inline = _inline_items(root)
    if not entries and not inline:
        raise GoldError(f"{root}: no labels ({LABELS_FILE}, or items with their own `labels:`)")
    name = _rubric_name(root, rubric, raw.get("rubric"), labels_path.exists())
    try:
        loaded = load_rubric(name)
    except RubricError as exc:
        raise GoldError(f"{root}: rubric: {exc}") from None
    annotators = _annotators(raw, str(labels_path))
    listed = {entry["file"]: (where, entry) for where, entry in entries}
    items = []
    for path, labels in inline:
        where = str(root / path)
        entry_where, entry = listed.pop(path, (where, {}))
        if entry.get("judged") is not None:
            raise GoldError(
                f"{entry_where}: {path} has its own `labels:` (its first annotator's): "
                "give only `annotations:` here"
            )
        item = GoldItem(
            file=path,
            judged=_inline_labels(labels, f"{where}: labels", loaded),
            deterministic=score_mapping(entry.get("deterministic"), f"{entry_where}.deterministic"),
            annotations=_annotations(entry.get("annotations"), f"{entry_where}.annotations", annotators),
        )
        _check_labels(item, loaded, where)
        items.append(item)
    for where, entry in entries:
        if entry["file"] not in listed:
            continue
        verdict = entry.get("verdict")
        structural = verdict.get("structural") if isinstance(verdict, dict) else None
        item = GoldItem(
            file=entry["file"],
            judged=score_mapping(entry.get("judged"), f"{where}.judged"),
            deterministic=score_mapping(entry.get("deterministic"), f"{where}.deterministic"),
            structural_verdict=str(structural) if structural else None,
            annotations=_annotations(entry.get("annotations"), f"{where}.annotations", annotators),
        )
        _check_labels(item, loaded, where)
        items.append(item)
    return GoldSet(root, name, tuple(items), annotators)


def _inline_items(root: Path) -> list[tuple[str, Any]]:
    """(file name, its `labels:`) for every YAML item in `root` that labels itself, by name."""
    found = []
    for path in sorted(p for p in root.iterdir() if p.suffix in ITEM_SUFFIXES and p.name != LABELS_FILE):
        raw = _read_yaml(path, GoldError)
        if isinstance(raw, dict) and "labels" in raw:
            found.append((path.name, raw["labels"]))
    return found


# ---- what the humans agree on ---------------------------------------------------------------------


@dataclass(frozen=True)
class Consensus:
    """The labels a judge is held to: per item and judged dimension, the score every annotator who
    labelled it gave. A pair one annotator labelled counts (nothing contradicts it); a pair the
    annotators scored differently is left out and listed: the humans do not agree on the answer."""

    labels: dict[str, dict[str, int]]  # file -> dimension -> the agreed score
    single: int  # pairs labelled by one annotator
    agreed: int  # pairs labelled alike by several
    disputed: tuple[str, ...]  # "file: dimension: first 4, second-reader 5"


def consensus(gold: GoldSet) -> Consensus:
    """What the annotators agree on (see Consensus)."""
    labels: dict[str, dict[str, int]] = {}
    single = agreed = 0
    disputed = []
    for item in gold.items:
        by = item.by_annotator(gold.annotators[0])
        dims = dict.fromkeys(d for annotated in by.values() for d in annotated)
        for dim in dims:
            given = {name: scores[dim] for name, scores in by.items() if dim in scores}
            if len(set(given.values())) == 1:
                labels.setdefault(item.file, {})[dim] = next(iter(given.values()))
                single += len(given) == 1
                agreed += len(given) > 1
            else:
                shown = ", ".join(f"{name} {score}" for name, score in given.items())
                disputed.append(f"{item.file}: {dim}: {shown}")
    return Consensus(labels, single, agreed, tuple(disputed))


def human_agreement(gold: GoldSet, rubric: Rubric) -> list[DimensionAgreement]:
    """Per judged dimension, how far the annotators agree with each other over the items several of
    them labelled (Cohen's and the weighted kappas for two annotators, Fleiss' for more). Where the
    items were labelled by different sets of annotators, the most common set is measured."""
    scale = (rubric.scale.min, rubric.scale.max)
    out = []
    for dim in rubric.judged:
        groups: dict[tuple[str, ...], list[list[int]]] = {}
        for item in gold.items:
            given = {n: s[dim.id] for n, s in item.by_annotator(gold.annotators[0]).items() if dim.id in s}
            if len(given) > 1:
                groups.setdefault(tuple(given), []).append(list(given.values()))
        if groups:
            sizes = Counter({raters: len(items) for raters, items in groups.items()})
            raters = max(sizes, key=lambda r: (sizes[r], len(r)))
            out.append(agreement(dim.id, groups[raters], scale=scale))
    return out
