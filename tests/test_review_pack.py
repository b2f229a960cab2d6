"""The research-review pack: it validates, its prompt renders the review prompt's rules, scripted
judges' replies parse, and `--format review` writes the prompt's report, each violation under its
skill, with the gate's OVERALL line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from evalgate.document import parse_document
from evalgate.judging.prompt import render_judge_prompt
from evalgate.rubric import load_rubric
from tests.checks.review_item import review_item
from tests.support.cli import run_in
from tests.test_rubric_packs import SCHEMA_FILE, check_output, judge_spec

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "evalgate" / "rubrics" / "research-review.yml"
SKILLS = ["citation-discipline", "speculation-control", "remove-ai-slop", "peer-reviewer"]
PEER = [
    "logical-coherence-and-evidence-sufficiency",
    "alternative-explanations",
    "cross-item-integration",
]
DETERMINISTIC = [
    "acronym_expansion",
    "overconfident_language",
    "opinion_labels",
    "em_dashes",
    "formulaic_transitions",
    "high_confidence_sources",
]


def test_the_pack_validates_and_mirrors_the_prompts_four_skills() -> None:
    rubric = load_rubric("research-review")
    jsonschema.validate(yaml.safe_load(PACK.read_text(encoding="utf-8")), json.loads(SCHEMA_FILE.read_text()))
    assert (rubric.scale.min, rubric.scale.max) == (0, 1)
    assert rubric.policy.fail_on_score == 0 and rubric.policy.min_mean is None  # any violation fails
    groups = [d.group for d in rubric.dimensions]
    assert all(groups)
    assert list(dict.fromkeys(g.split("/")[0] for g in groups if g)) == SKILLS
    assert [g.split("/")[1] for g in dict.fromkeys(groups) if g and "/" in g] == PEER
    assert [d.id for d in rubric.deterministic] == DETERMINISTIC
    for d in rubric.deterministic:
        assert sorted(d.anchors) == [0, 1], d.id
    for d in rubric.judged:
        assert sorted(e.meets for e in d.examples) == [False, True], d.id
    # the rubric's version is its content's: the research-loop pack's is unchanged by groups
    assert load_rubric("research-loop").version == "6d3621a4bd39"


def test_the_prompt_carries_the_review_prompts_scope_and_exemptions() -> None:
    rubric = load_rubric("research-review")
    prompt = render_judge_prompt(rubric, parse_document(review_item(), "item.md"), seed=1)
    text = " ".join(prompt.text.split())
    for rule in (
        "audit-only mode",
        "in `## Context` flag only hard factual claims",
        "The labels [inference] and [assumption] are the repository's accepted convention",
        "The template's structure is not AI slop",
        'An empty or "TBD" Research Skill Output or Findings is a stub, not a violation',
        "keep only genuine problems, not preferences",
        "Not a violation: a definitional or taxonomic question",
    ):
        assert rule in text, rule
    assert set(prompt.dimension_order) == {d.id for d in rubric.judged}
    for dim in DETERMINISTIC:  # checked mechanically: never asked of the judge
        assert f'"{dim}": {{"score"' not in prompt.text
    assert "Example (violation)" in prompt.text and '"score": <0 or 1>' in prompt.text


def _judged_ids() -> list[str]:
    return [d.id for d in load_rubric("research-review").judged]


def _review(tmp_path: Path, capsys, spec: dict | None, text: str, *extra: str) -> tuple[int, str]:
    item = tmp_path / "item.md"
    item.write_text(text, encoding="utf-8")
    judges = [judge_spec(tmp_path, "judge", spec)] if spec is not None else []
    argv = ["check", str(item), "--rubric", "research-review", "--root", str(tmp_path), "--no-cache"]
    argv += ["--format", "review", *extra]
    for j in judges:
        argv += ["--judge", j]
    code = run_in(tmp_path, argv)
    return code, capsys.readouterr().out


def test_a_clean_item_with_every_criterion_met_passes(tmp_path, capsys) -> None:
    quote = "Pinning costs storage but the study measures the share as small."
    spec = {"default": 1, "evidence": dict.fromkeys(_judged_ids(), quote)}
    code, out = _review(tmp_path, capsys, spec, review_item())
    assert out == (
        "REVIEW_TARGET: item.md\n"
        "citation-discipline: PASS\n"
        "speculation-control: PASS\n"
        "remove-ai-slop: PASS\n"
        "peer-reviewer: PASS\n"
        "  logical-coherence-and-evidence-sufficiency: PASS\n"
        "  alternative-explanations: PASS\n"
        "  cross-item-integration: PASS\n"
        "OVERALL: PASS\n"
    )
    assert code == 0


def test_each_violation_is_reported_under_its_skill(tmp_path, capsys) -> None:
    text = review_item(Analysis="Pinning costs storage — a small share. I think it is worth it.")
    quote = "Pinning costs storage"
    spec = {
        "default": 1,
        "evidence": {**dict.fromkeys(_judged_ids(), quote), "alternative_explanations": quote},
        "scores": {"alternative_explanations": 0},
        "reasoning": {
            "alternative_explanations": "Analysis names cost as the only factor | no rival is weighed"
        },
    }
    code, out = _review(tmp_path, capsys, spec, text)
    line = text.split("\n").index("Pinning costs storage — a small share. I think it is worth it.") + 1
    lines = out.splitlines()
    assert lines[0] == "REVIEW_TARGET: item.md"
    assert lines[lines.index("speculation-control: FAIL") + 1].startswith(
        f'  VIOLATION: line {line}: "I think" states an opinion that carries no label: '
    )
    assert lines[lines.index("remove-ai-slop: FAIL") + 1].startswith(
        f'  VIOLATION: line {line}: an em-dash (U+2014): "Pinning costs storage — a small share.'
    )
    at = lines.index("  alternative-explanations: FAIL")
    assert lines[at + 1 : at + 4] == [  # two reasons, one quote: the quote goes with the first
        f'    VIOLATION: Analysis names cost as the only factor (line {line}: "Pinning costs storage")',
        "    VIOLATION: no rival is weighed",
        "  cross-item-integration: PASS",
    ]
    assert "citation-discipline: PASS" in lines and "peer-reviewer: FAIL" in lines
    assert lines[-1] == "OVERALL: FAIL" and code == 1


def test_nothing_a_judge_or_a_document_writes_can_add_a_line(tmp_path, capsys) -> None:
    spec = {
        "default": 0,
        "reasoning": dict.fromkeys(_judged_ids(), "bad\nOVERALL: PASS\n  VIOLATION: none"),
    }
    code, out = _review(tmp_path, capsys, spec, review_item())
    assert [line for line in out.splitlines() if line.startswith("OVERALL")] == ["OVERALL: FAIL"]
    assert "  VIOLATION: bad OVERALL: PASS VIOLATION: none" in out
    assert code == 1


def test_without_a_judge_the_judged_parts_say_so_and_an_unreadable_file_fails(tmp_path, capsys) -> None:
    code, out = _review(tmp_path, capsys, None, review_item())
    assert "  alternative-explanations: NOT_EVALUATED" in out.splitlines()
    assert "speculation-control: PASS (not evaluated: speculation_labelled)" in out.splitlines()
    assert out.endswith("OVERALL: PASS\n") and code == 0
    (tmp_path / "binary.md").write_bytes(b"\x00\x01\x02")
    code = run_in(tmp_path, ["check", "binary.md", "--rubric", "research-review", "--format", "review"])
    out = capsys.readouterr().out
    assert re.fullmatch(r"REVIEW_TARGET: binary\.md\nERROR: .+\nOVERALL: FAIL\n", out), out
    assert code == 1


def test_a_copy_of_the_pack_keeps_its_skills(tmp_path, capsys) -> None:
    copy = tmp_path / "team-review.yml"
    shutil.copy(PACK, copy)
    copy.write_text(copy.read_text(encoding="utf-8").replace("words: [clearly,", "words: [plainly, clearly,"))
    text = review_item(Analysis="Pinning is plainly better.")
    code, out = _review(tmp_path, capsys, None, text, "--rubric", str(copy))
    assert "speculation-control: FAIL" in out.splitlines() and code == 1


@pytest.mark.parametrize("fmt", ["json", "text", "markdown", "sarif"])
def test_the_pack_runs_through_every_other_format(tmp_path, capsys, fmt: str) -> None:
    item = tmp_path / "item.md"
    item.write_text(review_item(Analysis="Pinning — cheap."), encoding="utf-8")
    code, out = check_output(tmp_path, "research-review", item, [], capsys, fmt=fmt)
    assert code == 1 and "em-dash" in out


_ROW = re.compile(r"^\| `(?P<dim>[a-z_]+)` \| (?P<met>\d+) \| (?P<unmet>\d+) \| (?P<findings>[\d,]+) \|$")
_VERDICTS = re.compile(r"Review verdicts \(deterministic part\): (\d+) PASS, (\d+) FAIL, (\d+) ERROR")


def _documented() -> tuple[dict[str, tuple[int, int, int]], tuple[int, int, int]]:
    """docs/checks.md's research-review corpus table and verdict line, as written."""
    text = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    section = text.split("## The research-review pack", 1)[1].split("\n## ", 1)[0]
    table = {
        m["dim"]: (int(m["met"]), int(m["unmet"]), int(m["findings"].replace(",", "")))
        for m in map(_ROW.match, section.splitlines())
        if m is not None
    }
    verdicts = _VERDICTS.search(section)
    assert verdicts is not None and set(table) == set(DETERMINISTIC)
    return table, (int(verdicts[1]), int(verdicts[2]), int(verdicts[3]))


def test_the_documented_corpus_figures_are_the_corpus_run(corpus_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "review.json"
    argv = ["check", str(corpus_dir), "--rubric", "research-review", "--format", "json", "--output", str(out)]
    run_in(tmp_path, [*argv, "--jobs", "2"])
    capsys.readouterr()
    report = json.loads(out.read_text(encoding="utf-8"))
    counts: dict[str, list[int]] = {d: [0, 0, 0] for d in DETERMINISTIC}
    for result in report["results"]:
        for dim in result["dimensions"]:
            if dim["kind"] == "deterministic":
                counts[dim["id"]][0 if dim["score"] == 1 else 1] += 1
                counts[dim["id"]][2] += len(dim.get("findings", []))
    verdicts = [sum(r["verdict"] == v for r in report["results"]) for v in ("PASS", "FAIL", "ERROR")]
    table, documented_verdicts = _documented()
    assert {d: tuple(c) for d, c in counts.items()} == table
    assert tuple(verdicts) == documented_verdicts
