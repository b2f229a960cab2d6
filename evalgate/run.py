"""The pipeline in one readable function: targets -> documents -> checks -> judges -> gate -> Report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from evalgate.checks import run_check
from evalgate.config import Config
from evalgate.discover import Target, discover, in_shard, repository_root
from evalgate.document import Document, DocumentError, read_document
from evalgate.gate import decide, error_result
from evalgate.results import DimensionResult, FileResult, JudgeCall, Report, RubricRef, Status
from evalgate.rubric import Rubric, load_rubric

if TYPE_CHECKING:
    from evalgate.judging.backends import Backend

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class _Loaded:
    target: Target
    document: Document | None
    error: str | None


def _skipped_judged(rubric: Rubric, reason: str) -> list[DimensionResult]:
    return [
        DimensionResult(id=d.id, kind="judge", status=Status.SKIPPED, hard_fail=d.hard_fail, error=reason)
        for d in rubric.judged
    ]


def _load(target: Target, max_bytes: int) -> _Loaded:
    try:
        return _Loaded(target, read_document(target.path, max_bytes=max_bytes), None)
    except DocumentError as exc:
        return _Loaded(target, None, str(exc))


def run(
    config: Config,
    inputs: Sequence[str],
    *,
    base: Path | None = None,
    progress: Progress | None = None,
) -> Report:
    """Evaluate every markdown file the inputs name and return the report. Never raises for a bad
    file: a file that cannot be evaluated gets an ERROR result with a clear message."""
    rubric = load_rubric(config.rubric)
    base_dir = (base or Path.cwd()).resolve()
    root = Path(config.root).resolve() if config.root else repository_root(base_dir)
    targets, problems = discover(list(inputs), root, base=base_dir)
    targets = [t for t in targets if in_shard(t.display, config.shard)]

    judges = _make_judges(config)
    total = len(targets)
    loaded = [_load(t, int(config.max_file_mb * 1024 * 1024)) for t in targets]

    structural: dict[str, list[DimensionResult]] = {}
    for i, item in enumerate(loaded, 1):
        if item.document is not None:
            structural[item.target.display] = [
                run_check(d.id, item.document, hard_fail=d.hard_fail) for d in rubric.deterministic
            ]
        if progress is not None and not judges:
            progress(i, total)

    judged = _judge_all(config, rubric, judges, loaded, progress)

    results: list[FileResult] = [error_result(p.display, p.message) for p in problems]
    for item in loaded:
        if item.document is None:
            results.append(error_result(item.target.display, item.error or "could not be read"))
            continue
        dims, calls, warnings = judged.get(item.target.display, ([], [], []))
        if not judges:
            dims = _skipped_judged(rubric, "no judge configured")
        results.append(
            decide(
                item.target.display,
                structural[item.target.display] + dims,
                rubric,
                on_judge_error=config.on_judge_error,
                seed=config.seed if judges else None,
                judges=calls,
                warnings=warnings,
            )
        )
    notes = []
    if not judges and rubric.judged:
        notes.append(
            "judged dimensions were skipped (no judge configured): "
            + ", ".join(d.id for d in rubric.judged)
            + "; verdicts cover the deterministic dimensions only"
        )
    report = Report(
        rubric=RubricRef(rubric.id, rubric.version),
        results=tuple(results),
        judges=tuple(config.judges),
        notes=tuple(notes),
    )
    if len(judges) > 1:
        from evalgate.agreement import agreement_by_dimension

        scale = (rubric.scale.min, rubric.scale.max)
        report = replace(report, agreement=agreement_by_dimension(report, scale=scale))
    return report


def _make_judges(config: Config) -> list[Backend]:
    if not config.judges:
        return []
    from evalgate.judging.setup import make_judges

    return list(make_judges(config))


def _judge_all(
    config: Config,
    rubric: Rubric,
    judges: list[Backend],
    loaded: list[_Loaded],
    progress: Progress | None,
) -> dict[str, tuple[list[DimensionResult], list[JudgeCall], list[str]]]:
    if not judges or not rubric.judged:
        return {}
    from evalgate.judging.setup import judge_documents

    documents = [(item.target.display, item.document) for item in loaded if item.document is not None]
    return judge_documents(config, rubric, judges, documents, progress=progress)
