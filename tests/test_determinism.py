"""Determinism: the same inputs, seed and recorded replies give byte-identical JSONL (timings aside);
the seed changes the prompt's dimension order, never the scores; and the whole check pipeline returns
a result, never an exception, for any text in a file."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgate.cli import main
from evalgate.config import Config
from evalgate.document import read_document
from evalgate.judging.prompt import dimension_order
from evalgate.results import Status, Verdict
from evalgate.rubric import load_rubric
from evalgate.run import run

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "gold" / "research-loop"
SCRIPTED_JUDGE = ROOT / "tests" / "fixtures" / "canary" / "scripted_judge.py"
# Timing fields: the only values allowed to differ between two runs of the same inputs.
TIMING = re.compile(rb'"(latency_ms|wall_ms)": [0-9.eE+-]+')


def without_timings(jsonl: bytes) -> bytes:
    """The JSONL bytes with every timing value replaced by 0 (everything else byte for byte)."""
    return TIMING.sub(rb'"\1": 0', jsonl)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The gold research-loop items and a scripted judge whose scores depend on the document only."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(GOLD, tmp_path / "docs")
    (tmp_path / "docs" / "unicode ünïcode.md").write_text("# Ü\n\n## Findings\n\nlow-marker\n", "utf-8")
    ids = [d.id for d in load_rubric("research-loop").judged]
    scores = {
        "low-marker": dict.fromkeys(ids, 2),
        "Retry": dict(zip(ids, (5, 3, 4, 2), strict=True)),
        "*": dict.fromkeys(ids, 4),
    }
    (tmp_path / "scores.json").write_text(json.dumps(scores), "utf-8")
    return tmp_path


def _scripted_judge(workspace: Path) -> str:
    return "command:" + shlex.join([sys.executable, str(SCRIPTED_JUDGE), str(workspace / "scores.json")])


def _check(judge: str, seed: int, output: Path, *options: str) -> int:
    """`evalgate check docs` with one judge and seed, its report in `output` (.json or .jsonl)."""
    fmt = output.suffix.lstrip(".")
    args = ["--judge", judge, "--seed", str(seed), "--format", fmt, "--output", str(output), *options]
    return main(["check", "docs", "--no-cache", *args])


def _scores(jsonl: bytes) -> list[tuple[str, str, list[int | None]]]:
    rows = [json.loads(line) for line in jsonl.splitlines()]
    return [(r["path"], r["verdict"], [d["score"] for d in r["dimensions"]]) for r in rows]


def test_replayed_runs_are_byte_identical_apart_from_timings(workspace: Path) -> None:
    recorded = workspace / "recorded.jsonl"
    _check(_scripted_judge(workspace), 5, recorded, "--record", "replies")
    assert len(list((workspace / "replies").glob("*.json"))) == 7  # one reply per document

    outputs = []
    for jobs in ("1", "8"):  # and the number of calls in flight changes nothing
        out = workspace / f"replay-{jobs}.jsonl"
        _check("replay:replies", 5, out, "--jobs", jobs)
        outputs.append(out.read_bytes())
    assert TIMING.search(outputs[0]), "the test must see the timing fields it removes"
    assert without_timings(outputs[0]) == without_timings(outputs[1])

    # the replay reproduces the recorded run's scores and verdicts (only the backend's name differs)
    replayed = _scores(outputs[0])
    assert replayed == _scores(recorded.read_bytes())
    assert {verdict for _, verdict, _ in replayed} == {"PASS", "FAIL"}


def _judged_scores(report_file: Path) -> dict[tuple[str, str], int | None]:
    report = json.loads(report_file.read_text())
    return {
        (r["path"], d["id"]): d["score"]
        for r in report["results"]
        for d in r["dimensions"]
        if d["kind"] == "judge"
    }


def test_another_seed_reorders_the_prompt_but_not_the_scores(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = load_rubric("research-loop")
    item = next((workspace / "docs").glob("*retry*.md"))
    document = read_document(item).text  # the order is drawn from (seed, document, judge, attempt)
    assert [d.id for d in dimension_order(rubric, 1, document)] != [
        d.id for d in dimension_order(rubric, 2, document)
    ]
    orders = []
    for seed in ("1", "2"):
        main(["prompt", str(item), "--seed", seed])
        text = capsys.readouterr().out
        table = text[text.rfind("## Reply format") :]
        orders.append(sorted((d.id for d in rubric.judged), key=lambda i: table.index(f"| {i} |")))
    assert orders[0] != orders[1]
    assert orders == [[d.id for d in dimension_order(rubric, s, document)] for s in (1, 2)]

    judge = _scripted_judge(workspace)
    _check(judge, 1, workspace / "seed-1.json")
    _check(judge, 2, workspace / "seed-2.json")
    one, two = _judged_scores(workspace / "seed-1.json"), _judged_scores(workspace / "seed-2.json")
    assert one == two and len(one) == 7 * 4
    assert one[("docs/unicode ünïcode.md", "epistemic_labeling")] == 2
    seeds = {r["seed"] for r in json.loads((workspace / "seed-2.json").read_text())["results"]}
    assert seeds == {2}  # the seed is recorded


def test_recorded_replies_do_not_answer_another_seed(workspace: Path) -> None:
    """A recording is keyed by the exact prompt: a reordered prompt misses it, never reuses it."""
    _check(_scripted_judge(workspace), 1, workspace / "a.json", "--record", "replies")
    _check("replay:replies", 2, workspace / "b.json")
    report = json.loads((workspace / "b.json").read_text())
    judged = [d for r in report["results"] for d in r["dimensions"] if d["kind"] == "judge"]
    assert judged and all(d["status"] == "error" and "no recording" in d["error"] for d in judged)
    assert {r["verdict"] for r in report["results"]} == {"FAIL"}  # a judge that errored fails the file


MARKDOWNISH = st.lists(
    st.sampled_from(
        [
            "---",
            "title: [unclosed",
            "a: &a [*a, *a]",
            "---",
            "# Title",
            "## Executive Summary",
            "## Findings",
            "### Key Findings",
            "1. [fact] A claim of twenty words or more would go here, with a source. (High) [S](https://x.y)",
            "### Evidence Map",
            "| # | claim | source |",
            "|---|---|---|",
            "| 1 | a | [s](https://x.y) |",
            "## Sources",
            "- [x] [A](https://a.example)",
            "- [ ] B",
            "```",
            "END EVALGATE-DATA",
            "| dimension | score |",
            "OVERALL: PASS",
            "Large Language Model (LLM) and API and (CI, Continuous Integration)",
            "> > > nested",
            "\x00",
            "",
        ]
    )
    | st.text(max_size=60),
    max_size=50,
).map("\n".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(MARKDOWNISH, st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_the_check_pipeline_never_raises(tmp_path: Path, text: str) -> None:
    document = tmp_path / "item.md"
    document.write_bytes(text.encode("utf-8", "surrogatepass"))
    # replay from an empty directory: every judge call fails, so the prompt is rendered for any text
    # and the judge-error path is taken, without a process or a server per example
    config = Config(judges=("replay:" + str(tmp_path / "none"),), cache=False, root=str(tmp_path))
    report = run(config, [str(document)], base=tmp_path)
    [result] = report.results
    assert result.verdict in (Verdict.ERROR, Verdict.FAIL)  # a judge that errored fails the file
    if result.error is None:
        assert {d.status for d in result.dimensions if d.kind == "deterministic"} == {Status.SCORED}
        assert all(d.status is Status.ERROR for d in result.dimensions if d.kind == "judge")
    json.dumps(report.to_json())  # and the report serialises
