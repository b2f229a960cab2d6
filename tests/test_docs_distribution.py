"""docs/checks.md's score distribution is what `evalgate check` gives on the corpus today.

The table and the verdict line are written by hand from a run; a change to a check that moves any
score must update them, and this test says which figure no longer holds.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from evalgate.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHECKS_DOC = ROOT / "docs" / "checks.md"
_ROW = re.compile(r"^\| `(?P<dim>[a-z_]+)` \|(?P<counts>(?: *\d+ *\|){5})\s*$")
_VERDICTS = re.compile(r"Structural verdicts: (\d+) PASS, (\d+) FAIL, (\d+) ERROR")
_HARD = re.compile(r"`([a-z_]+)` (\d+) items")


def documented() -> tuple[dict[str, list[int]], tuple[int, int, int], dict[str, int]]:
    """(dimension -> counts of scores 5..1, (PASS, FAIL, ERROR), hard-failing dimension -> items)
    as docs/checks.md's "Score distribution over the corpus" section states them."""
    section = CHECKS_DOC.read_text(encoding="utf-8").split("## Score distribution over the corpus", 1)[1]
    section = section.split("\n## ", 1)[0]
    table = {
        m["dim"]: [int(n) for n in m["counts"].strip(" |").split("|")]
        for m in map(_ROW.match, section.splitlines())
        if m is not None
    }
    verdicts = _VERDICTS.search(section)
    assert verdicts is not None, "the verdict line is missing from the section"
    hard_text = section.split("Hard", 1)[1].split("\n\n", 1)[0]
    hard = {dim: int(n) for dim, n in _HARD.findall(" ".join(hard_text.split()))}
    return table, (int(verdicts[1]), int(verdicts[2]), int(verdicts[3])), hard


def test_the_section_is_read_as_written() -> None:
    table, verdicts, hard = documented()
    assert set(table) == {
        "section_presence",
        "evidence_map_coverage",
        "key_finding_word_count",
        "source_consultation",
        "acronym_expansion",
    }
    assert all(sum(counts) == sum(verdicts) for counts in table.values())
    assert hard and all(dim in table for dim in hard)


def test_docs_distribution_is_the_corpus_run(corpus_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "corpus.json"
    code = main(["check", str(corpus_dir), "--format", "json", "--output", str(out), "--jobs", "2"])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert code == (1 if report["summary"]["verdict"] != "PASS" else 0)
    scores: dict[str, Counter[int]] = {}
    hard: Counter[str] = Counter()
    for result in report["results"]:
        for dim in result["dimensions"]:
            if dim["status"] == "scored":
                scores.setdefault(dim["id"], Counter())[dim["score"]] += 1
        hard.update(result["hard_failures"])
    verdicts = Counter(result["verdict"] for result in report["results"])

    table, (passed, failed, errors), hard_doc = documented()
    assert {dim: [scores[dim][s] for s in (5, 4, 3, 2, 1)] for dim in scores} == table
    assert (verdicts["PASS"], verdicts["FAIL"], verdicts["ERROR"]) == (passed, failed, errors)
    assert dict(hard) == hard_doc
