"""The hand-written gold set is well-formed: labels match the rubric, files exist, lines are real.

gold/labels.yml holds the expected scores, verdicts and defect lines for the research-loop items;
gold/knowledge-work/ and gold/support-reply/ carry their human labels inline. These tests hold the
labels to the rubric and to the files they describe, so that a later calibration or check test can
trust them. The last research-loop test runs the structural checks over the items and holds them
to the labelled scores and defect lines; judges are never called.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field

from evalgate.checks import run_check
from evalgate.document import read_document
from evalgate.gate import decide
from evalgate.results import DimensionResult, Status, Verdict
from evalgate.rubric import Rubric, load_rubric

GOLD = Path(__file__).resolve().parent.parent / "gold"
LABELS = GOLD / "labels.yml"
TEMPLATE = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "reference"
    / "research-protocol"
    / "_template.md"
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExpectedFinding(_Strict):
    """A planted defect: which dimension must report it and on which line (None: no line of its own)."""

    dimension: str
    line: int | None = Field(ge=1)
    text: str | None = None  # a fragment that is on `line`, so a shifted line is caught
    about: str


class Verdicts(_Strict):
    structural: Literal["PASS", "FAIL"]
    full: Literal["PASS", "FAIL"]


class ResearchItemLabel(_Strict):
    file: str
    intent: str
    deterministic: dict[str, int]
    judged: dict[str, int]
    verdict: Verdicts
    why: str = Field(min_length=20)
    expected_findings: tuple[ExpectedFinding, ...]


class GoldLabels(_Strict):
    rubric: str
    items: tuple[ResearchItemLabel, ...] = Field(min_length=4)


class Material(_Strict):
    name: str
    text: str = Field(min_length=20)


class KnowledgeWorkItem(_Strict):
    id: str
    persona: str
    scenario: str
    question: str
    materials: tuple[Material, ...] = Field(min_length=1)
    response: str = Field(min_length=100)
    labels: dict[
        Literal["completeness", "accuracy", "synthesis", "judgment", "actionability", "structure"], int
    ]
    why: str


class Policy(_Strict):
    id: str
    version: str
    current: bool
    text: str


class ToolResult(_Strict):
    tool: str
    result: dict[str, object]


class CriterionLabel(_Strict):
    met: bool
    evidence: str | None


SUPPORT_CRITERIA = (
    "addresses_question",
    "cites_current_policy",
    "amount_matches_tools",
    "states_next_step",
    "no_unsupported_claims",
    "tone_appropriate",
)


class SupportReplyItem(_Strict):
    id: str
    customer_question: str
    policy: Policy
    superseded_policy: Policy | None = None
    tool_results: tuple[ToolResult, ...] = Field(min_length=1)
    reply: str
    labels: dict[str, CriterionLabel]
    why: str


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric("research-loop")


@pytest.fixture(scope="module")
def gold() -> GoldLabels:
    return GoldLabels.model_validate(yaml.safe_load(LABELS.read_text(encoding="utf-8")))


def _lines(label: ResearchItemLabel) -> list[str]:
    return (GOLD / label.file).read_text(encoding="utf-8").splitlines()


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_labels_name_the_rubric_and_every_dimension(gold: GoldLabels, rubric: Rubric) -> None:
    assert gold.rubric == rubric.id
    deterministic = {d.id for d in rubric.deterministic}
    judged = {d.id for d in rubric.judged}
    for item in gold.items:
        assert set(item.deterministic) == deterministic, item.file
        assert set(item.judged) == judged, item.file
        for dim, score in {**item.deterministic, **item.judged}.items():
            assert rubric.scale.min <= score <= rubric.scale.max, f"{item.file}: {dim}={score}"


def test_every_labelled_item_exists_and_every_item_is_labelled(gold: GoldLabels) -> None:
    labelled = [item.file for item in gold.items]
    assert len(labelled) == len(set(labelled)), "an item is labelled twice"
    for file in labelled:
        assert (GOLD / file).is_file(), f"labelled item {file} does not exist"
    on_disk = {p.relative_to(GOLD).as_posix() for p in (GOLD / "research-loop").glob("*.md")}
    assert on_disk == set(labelled)


def test_the_set_covers_each_planned_defect(gold: GoldLabels) -> None:
    # One clean pass, and one item failing each of the dimensions the set exists to exercise.
    assert any(i.verdict.full == "PASS" for i in gold.items)
    for dim in ("acronym_expansion", "evidence_map_coverage", "key_finding_word_count"):
        assert any(i.deterministic[dim] < 3 for i in gold.items), dim
    first = [i for i in gold.items if i.judged["executive_summary_first_sentence"] == 1]
    assert first and all(i.verdict.structural == "PASS" for i in first)


def _verdict(label: ResearchItemLabel, rubric: Rubric, *, with_judges: bool) -> Verdict:
    results = []
    for dim in rubric.dimensions:
        scores = label.deterministic if dim.kind == "deterministic" else label.judged
        status = Status.SCORED if dim.kind == "deterministic" or with_judges else Status.SKIPPED
        score = scores[dim.id] if status is Status.SCORED else None
        results.append(DimensionResult(dim.id, dim.kind, status, score=score, hard_fail=dim.hard_fail))
    return decide(label.file, results, rubric).verdict


def test_labelled_verdicts_follow_the_policy(gold: GoldLabels, rubric: Rubric) -> None:
    for item in gold.items:
        assert _verdict(item, rubric, with_judges=False).value == item.verdict.structural, item.file
        assert _verdict(item, rubric, with_judges=True).value == item.verdict.full, item.file


def test_expected_findings_point_at_real_lines(gold: GoldLabels, rubric: Rubric) -> None:
    ids = {d.id for d in rubric.dimensions}
    for item in gold.items:
        lines = _lines(item)
        for f in item.expected_findings:
            assert f.dimension in ids, f"{item.file}: unknown dimension {f.dimension}"
            if f.line is None:
                assert f.text is None, f"{item.file}: text without a line ({f.about})"
                continue
            assert f.line <= len(lines), f"{item.file}: line {f.line} is past the end"
            assert f.text and f.text in lines[f.line - 1], f"{item.file}:{f.line} lacks {f.text!r}"


def test_findings_and_scores_agree(gold: GoldLabels) -> None:
    # A deterministic score of 5 means nothing to report; anything lower names its defects.
    for item in gold.items:
        reported = {f.dimension for f in item.expected_findings}
        for dim, score in item.deterministic.items():
            assert (score < 5) == (dim in reported), f"{item.file}: {dim} scored {score}"
        if item.judged["executive_summary_first_sentence"] < 3:
            assert "executive_summary_first_sentence" in reported, item.file


def test_items_follow_the_protocol_basics(gold: GoldLabels) -> None:
    for item in gold.items:
        text = (GOLD / item.file).read_text(encoding="utf-8")
        assert "\u2014" not in text, f"{item.file}: the protocol prohibits em-dashes"
        front = yaml.safe_load(text.split("---\n", 2)[1])
        assert front["status"] == "completed", item.file
        title = front["title"]
        assert f"\n# {title}\n" in text, f"{item.file}: heading differs from front matter title"


def _label_ids() -> list[str]:
    raw = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    return [item["file"] for item in raw["items"]]


@pytest.mark.parametrize("file", _label_ids())
def test_structural_checks_agree_with_gold(file: str, gold: GoldLabels, rubric: Rubric) -> None:
    item = next(i for i in gold.items if i.file == file)
    document = read_document(GOLD / file)
    for dim, expected in item.deterministic.items():
        result = run_check(dim, document, hard_fail=rubric.dimension(dim).hard_fail)
        assert result.status is Status.SCORED, f"{file}: {dim}: {result.error}"
        assert result.score == expected, f"{file}: {dim} scored {result.score}, gold says {expected}"
        reported = {f.line for f in result.findings}
        wanted = [f for f in item.expected_findings if f.dimension == dim]
        assert len(result.findings) >= len(wanted), f"{file}: {dim} reported too few findings"
        for f in wanted:
            if f.line is not None:
                assert f.line in reported, f"{file}: {dim} missed line {f.line} ({f.about})"


def _corpus_lines(corpus_dir: Path) -> set[str]:
    out: set[str] = set()
    for path in corpus_dir.glob("*.md"):
        out.update(_squash(line) for line in path.read_text(encoding="utf-8", errors="replace").splitlines())
    return out


def test_items_are_not_copied_from_the_corpus(gold: GoldLabels, corpus_dir: Path) -> None:
    corpus = _corpus_lines(corpus_dir)
    # The template's own placeholder text is planted on purpose in one item; it is not corpus prose.
    template = (
        set(_squash(line) for line in TEMPLATE.read_text(encoding="utf-8").splitlines())
        if TEMPLATE.exists()
        else set()
    )
    for item in gold.items:
        for number, line in enumerate(_lines(item), 1):
            prose = _squash(line)
            if len(prose) >= 60 and prose not in template:
                assert prose not in corpus, f"{item.file}:{number} appears verbatim in the corpus"


def _yaml_items(folder: str) -> list[tuple[Path, dict[str, object]]]:
    paths = sorted(p for p in (GOLD / folder).glob("*.yml") if p.name != "labels.yml")  # items only
    assert paths, f"gold/{folder}/ has no items"
    return [(p, yaml.safe_load(p.read_text(encoding="utf-8"))) for p in paths]


def test_knowledge_work_items_carry_six_likert_labels() -> None:
    items = [KnowledgeWorkItem.model_validate(raw) for _, raw in _yaml_items("knowledge-work")]
    assert len({i.id for i in items}) == len(items)
    for item in items:
        assert len(item.labels) == 6, item.id
        assert all(1 <= v <= 5 for v in item.labels.values()), item.id
    # Calibration needs spread: at least one strong and one weak response.
    means = [sum(i.labels.values()) / 6 for i in items]
    assert max(means) >= 4 and min(means) <= 2.5


def test_support_reply_items_label_every_criterion_with_quoted_evidence() -> None:
    for path, raw in _yaml_items("support-reply"):
        item = SupportReplyItem.model_validate(raw)
        assert path.stem == item.id
        assert tuple(item.labels) == SUPPORT_CRITERIA, item.id
        assert item.policy.current and (item.superseded_policy is None or not item.superseded_policy.current)
        reply = _squash(item.reply)
        for name, label in item.labels.items():
            if label.evidence is None:
                # Only an absence can go unquoted: a reply that makes no unsupported claim.
                assert label.met and name == "no_unsupported_claims", f"{item.id}: {name} needs evidence"
            else:
                assert _squash(label.evidence) in reply, f"{item.id}: {name} evidence is not in the reply"


def test_support_reply_amounts_come_from_the_tools() -> None:
    # Each reply quotes one amount; a criterion marked met must match a tool amount exactly.
    for _, raw in _yaml_items("support-reply"):
        item = SupportReplyItem.model_validate(raw)
        tool_amounts = {
            f"{v:.2f}" for r in item.tool_results for v in r.result.values() if isinstance(v, float)
        }
        quoted = set(re.findall(r"\b[A-Z]{3} (\d+\.\d{2})\b", item.reply))
        assert quoted, f"{item.id}: the reply quotes no amount"
        assert item.labels["amount_matches_tools"].met == (quoted <= tool_amounts), item.id
