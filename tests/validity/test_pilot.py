"""`evalgate pilot`: 3 tasks x 4 cells judged blind by a scripted trio; records and summary in the trio
protocol's shape, held to the published schemas and to values computed by hand."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from evalgate.validity.pilot import PilotError, load_pilot_config, register
from evalgate.validity.pilot_config import JudgeRef, derived_label, judge_labels
from tests.test_rubric_packs import KW_DIMS, judge_spec

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pilot"
SCHEMAS = Path(__file__).resolve().parents[2] / "evalgate" / "schemas"
LABELS = ("opus", "gpt", "minimax")
WORDS = {
    ("t1", "A"): "amber", ("t1", "B"): "birch", ("t1", "C"): "cedar", ("t1", "D"): "dune",
    ("t2", "A"): "elm", ("t2", "B"): "fern", ("t2", "C"): "gorse", ("t2", "D"): "heath",
    ("t3", "A"): "iris", ("t3", "B"): "juniper", ("t3", "C"): "kelp", ("t3", "D"): "larch",
}  # fmt: skip


def dims(*scores: int) -> dict[str, int]:
    return dict(zip(KW_DIMS, scores, strict=True))


# (task, cell): (opus, gpt, minimax). An int scores every dimension alike (the judge's mean is that
# int); a dict gives the six dimensions, so the judge's mean is a fraction.
TRIO = {
    ("t1", "A"): (3, 3, 3),
    ("t1", "B"): (dims(5, 4, 4, 4, 3, 4), 4, 3),  # opus mean 24/6 = 4.0: PASS_STRONG at its floor
    ("t1", "C"): (3, 4, 4),
    ("t1", "D"): (4, 4, 4),
    ("t2", "A"): (2, dims(3, 2, 3, 2, 3, 2), 4),  # gpt 15/6 = 2.5; two judges < 3.0: the trio FAIL
    ("t2", "B"): (3, 3, 4),
    ("t2", "C"): (4, 4, 4),
    ("t2", "D"): (4, 4, 5),
    ("t3", "A"): (4, 4, 4),
    ("t3", "B"): (4, 4, 4),
    ("t3", "C"): (dims(1, 2, 1, 1, 2, 1), 1, 5),  # opus 8/6; two judges < 2.0: the critical failure
    ("t3", "D"): (3, 3, dims(4, 4, 3, 4, 3, 3)),  # minimax 21/6 = 3.5: PASS_ADEQUATE at its floor
}
PROTOCOL_RECORD_KEYS = [
    "task_id", "cell_id", "model", "configuration", "candidate_response", "candidate_latency_ms",
    "candidate_tokens_in", "candidate_tokens_out", "candidate_cost_usd",
    "judge_opus", "judge_gpt", "judge_minimax",
    "trio_mean", "trio_strict_pass", "trio_critical_fail", "manifest_anchor", "head_sha",
]  # fmt: skip
JUDGE_KEYS = [*KW_DIMS, "rationale", "overall_verdict", "mean"]


@pytest.fixture
def pilot_dir(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "pilot")
    return tmp_path / "pilot"


def trio_specs(tmp_path: Path, trio: dict, fail_when: dict[int, str] | None = None) -> list[str]:
    log = tmp_path / "prompts.log"
    specs = []
    for n, label in enumerate(LABELS):
        by_text = [[f"Ref: {WORDS[key]}.", scores[n]] for key, scores in trio.items()]
        spec = {"default": 1, "by_text": by_text, "reasoning": {"structure": f"{label} rationale"}}
        if fail_when and n in fail_when:
            spec["fail_when"] = fail_when[n]
        specs.append(judge_spec(tmp_path, f"judge-{label}", {**spec, "log": str(log)}))
    return specs


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalgate")
    register(parser.add_subparsers(dest="command"), "test")
    args = parser.parse_args(argv)
    return args.func(args)


def with_config(pilot_dir: Path, **changes) -> Path:
    path = pilot_dir / "pilot.yml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**raw, **changes}, sort_keys=False), encoding="utf-8")
    return path


def pilot(pilot_dir: Path, tmp_path: Path, trio: dict, **options) -> tuple[int, list[dict], dict]:
    specs = trio_specs(tmp_path, trio, options.pop("fail_when", None))
    judges = [{"spec": s, "label": label} for s, label in zip(specs, LABELS, strict=True)]
    config = with_config(pilot_dir, judges=judges, **options)
    code = run(["pilot", str(config), "--output", str(tmp_path / "out")])
    lines = (tmp_path / "out" / "pilot.jsonl").read_text(encoding="utf-8").splitlines()
    summary = json.loads((tmp_path / "out" / "pilot-summary.json").read_text(encoding="utf-8"))
    records = [json.loads(x) for x in lines]
    for r in records:
        jsonschema.validate(r, json.loads((SCHEMAS / "pilot-record.schema.json").read_text("utf-8")))
    jsonschema.validate(summary, json.loads((SCHEMAS / "pilot-summary.schema.json").read_text("utf-8")))
    return code, records, summary


def test_records_in_the_protocol_shape_by_hand(pilot_dir, tmp_path):
    _, records, _ = pilot(pilot_dir, tmp_path, TRIO)
    assert [(r["task_id"], r["cell_id"]) for r in records] == list(TRIO)
    first = records[0]
    assert list(first)[: len(PROTOCOL_RECORD_KEYS)] == PROTOCOL_RECORD_KEYS
    assert list(first)[len(PROTOCOL_RECORD_KEYS) :] == ["trio_fail", "evalgate"]
    assert (first["model"], first["configuration"]) == ("acme-small", "baseline")
    assert "Ref: amber." in first["candidate_response"]
    assert [first[f"candidate_{k}"] for k in ("latency_ms", "tokens_in", "tokens_out", "cost_usd")] == [
        1200,
        800,
        300,
        0.004,
    ]
    assert first["judge_opus"] == {
        **dict.fromkeys(KW_DIMS, 3),
        "rationale": "opus rationale",
        "overall_verdict": "FAIL_WEAK",
        "mean": 3.0,
    }
    assert first["manifest_anchor"].startswith("sha256:") and "head_sha" in first
    assert first["evalgate"]["judges"]["gpt"]["backend"] == f"command:{tmp_path / 'judge-gpt'}"
    assert first["evalgate"]["rubric"]["id"] == "knowledge-work"

    by = {(r["task_id"], r["cell_id"]): r for r in records}
    assert by[("t1", "B")]["candidate_latency_ms"] is None  # no metrics file
    t2d = by[("t2", "D")]  # 950.6 ms recorded as an integer; tokens_in "many" is null, with a note
    assert (t2d["candidate_latency_ms"], t2d["candidate_tokens_in"], t2d["candidate_cost_usd"]) == (
        951,
        None,
        0.012,
    )
    assert "tokens_in is not a number" in t2d["evalgate"]["notes"][0]

    # Each judge's mean, its band, and the trio (means of judges' means), by hand.
    def judged(key):
        r = by[key]
        return [(r[f"judge_{j}"]["mean"], r[f"judge_{j}"]["overall_verdict"]) for j in LABELS]

    assert judged(("t1", "B")) == [(4.0, "PASS_STRONG"), (4.0, "PASS_STRONG"), (3.0, "FAIL_WEAK")]
    assert judged(("t2", "A")) == [(2.0, "FAIL_CRITICAL"), (2.5, "FAIL_WEAK"), (4.0, "PASS_STRONG")]
    assert judged(("t3", "C")) == [(1.3333, "FAIL_CRITICAL"), (1.0, "FAIL_CRITICAL"), (5.0, "PASS_STRONG")]
    assert judged(("t3", "D"))[2] == (3.5, "PASS_ADEQUATE")
    assert by[("t3", "C")]["judge_opus"]["synthesis"] == 1 and by[("t3", "C")]["judge_opus"]["accuracy"] == 2
    trio = {
        k: (r["trio_mean"], r["trio_strict_pass"], r["trio_critical_fail"], r["trio_fail"])
        for k, r in by.items()
    }
    assert trio == {
        ("t1", "A"): (3.0, False, False, False),  # 3.0 is not below 3.0
        ("t1", "B"): (3.6667, True, False, False),  # 11/3
        ("t1", "C"): (3.6667, True, False, False),
        ("t1", "D"): (4.0, True, False, False),
        ("t2", "A"): (2.8333, False, False, True),  # 8.5/3; 2.0 and 2.5 < 3.0; 2.0 is not < 2.0
        ("t2", "B"): (3.3333, False, False, False),
        ("t2", "C"): (4.0, True, False, False),
        ("t2", "D"): (4.3333, True, False, False),
        ("t3", "A"): (4.0, True, False, False),
        ("t3", "B"): (4.0, True, False, False),
        ("t3", "C"): (2.4444, False, True, True),  # (4/3 + 1 + 5) / 3 = 22/9
        ("t3", "D"): (3.1667, False, False, False),  # 9.5/3: only one judge reaches 3.5
    }


def test_summary_in_the_protocol_shape_by_hand(pilot_dir, tmp_path):
    code, _, summary = pilot(pilot_dir, tmp_path, TRIO)
    assert list(summary) == [
        "pilot_id",
        "execution_window_utc",
        "total_cost_usd",
        "total_judge_calls",
        "total_candidate_calls",
        "results_per_task",
        "aggregate",
        "evalgate",
    ]
    assert summary["pilot_id"] == "fixture-pilot"
    assert re.fullmatch(
        r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) to (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)",
        summary["execution_window_utc"],
    )
    assert (summary["total_judge_calls"], summary["total_candidate_calls"]) == (36, 12)
    # Only t1/A's candidate cost (0.004) and t2/D's (0.012) are known; command judges report none.
    assert summary["total_cost_usd"] is None
    assert (summary["evalgate"]["known_cost_usd"], summary["evalgate"]["calls_without_cost"]) == (
        0.016,
        10 + 36,
    )
    # Deltas from the unrounded trio means: t3 h3 = 9.5/3 - 22/9 = 6.5/9 = 0.7222.
    assert summary["results_per_task"] == {
        "t1": {
            "cell_A_trio_mean": 3.0,
            "cell_B_trio_mean": 3.6667,
            "cell_C_trio_mean": 3.6667,
            "cell_D_trio_mean": 4.0,
            "h2_delta_opus": 0.6667,
            "h3_delta_qwen": 0.3333,
            "h4_delta_sovereignty": 1.0,
            "h2_directional_pass": True,
            "h3_directional_pass": True,
            "h4_directional_pass": True,
        },
        "t2": {
            "cell_A_trio_mean": 2.8333,
            "cell_B_trio_mean": 3.3333,
            "cell_C_trio_mean": 4.0,
            "cell_D_trio_mean": 4.3333,
            "h2_delta_opus": 0.5,
            "h3_delta_qwen": 0.3333,
            "h4_delta_sovereignty": 1.5,
            "h2_directional_pass": True,
            "h3_directional_pass": True,
            "h4_directional_pass": True,
        },
        "t3": {
            "cell_A_trio_mean": 4.0,
            "cell_B_trio_mean": 4.0,
            "cell_C_trio_mean": 2.4444,
            "cell_D_trio_mean": 3.1667,
            "h2_delta_opus": 0.0,
            "h3_delta_qwen": 0.7222,
            "h4_delta_sovereignty": -0.8333,
            "h2_directional_pass": False,
            "h3_directional_pass": True,
            "h4_directional_pass": False,
        },
    }
    assert summary["aggregate"] == {
        "h2_pass_count": 2,
        "h3_pass_count": 3,
        "h4_pass_count": 2,
        "critical_failures": 1,
        "pilot_verdict": "FAIL",
    }
    extras = summary["evalgate"]
    assert extras["trio_fails"] == ["t2/A", "t3/C"] and extras["critical"] == ["t3/C"]
    assert (extras["strict_passes"], extras["judge_errors"], extras["not_judged"]) == (7, 0, [])
    assert extras["reasons"] == ["critical failure: t3/C"]
    assert code == 1


def test_without_the_critical_failure_the_pilot_passes(pilot_dir, tmp_path):
    # t3/C at (3, 3, 3): t3's h3 delta is 9.5/3 - 3 = 0.1667 < 0.30, so h3 is right in 2 of 3 tasks.
    code, _, summary = pilot(pilot_dir, tmp_path, {**TRIO, ("t3", "C"): (3, 3, 3)})
    assert summary["results_per_task"]["t3"]["h3_delta_qwen"] == 0.1667
    assert summary["aggregate"] == {
        "h2_pass_count": 2,
        "h3_pass_count": 2,
        "h4_pass_count": 2,
        "critical_failures": 0,
        "pilot_verdict": "PASS",
    }
    assert summary["evalgate"]["trio_fails"] == ["t2/A"]  # a trio FAIL is reported, not a pilot FAIL
    assert code == 0


def test_a_wrong_direction_fails_the_hypothesis(pilot_dir, tmp_path):
    trio = {**TRIO, ("t3", "C"): (3, 3, 3), ("t2", "B"): (3, 3, 3)}  # t2 B-A becomes 0.1667 < 0.30
    code, _, summary = pilot(pilot_dir, tmp_path, trio)
    assert summary["aggregate"]["h2_pass_count"] == 1
    assert summary["evalgate"]["reasons"] == [
        "hypothesis h2 (opus, B-A): direction right in 1 of 3 tasks (needs 2)"
    ]
    assert code == 1


def test_judges_are_blind_to_model_and_configuration(pilot_dir, tmp_path):
    pilot(pilot_dir, tmp_path, TRIO)
    prompts = (tmp_path / "prompts.log").read_text(encoding="utf-8").split("\n\0\n")
    assert len([p for p in prompts if p.strip()]) == 36
    for p in prompts:
        for hidden in ("acme-small", "acme-large", "multiplier", "baseline", "cell"):
            assert hidden not in p


def test_a_missing_response_is_a_null_record_and_a_reason(pilot_dir, tmp_path):
    (pilot_dir / "responses" / "t2" / "C.md").unlink()
    code, records, summary = pilot(pilot_dir, tmp_path, TRIO)
    assert len(records) == 12  # every record is written
    t2c = records[6]
    assert (t2c["task_id"], t2c["cell_id"], t2c["candidate_response"]) == ("t2", "C", None)
    assert all(t2c[f"judge_{j}"] == dict.fromkeys(JUDGE_KEYS) for j in LABELS)
    assert [t2c[k] for k in ("trio_mean", "trio_strict_pass", "trio_critical_fail", "trio_fail")] == [
        None
    ] * 4
    assert not any(j["called"] for j in t2c["evalgate"]["judges"].values())
    assert re.fullmatch(
        r"response .*/t2/C\.md: cannot read: No such file or directory", t2c["evalgate"]["missing"][0]
    )
    assert (summary["total_judge_calls"], summary["total_candidate_calls"]) == (33, 11)
    t2 = summary["results_per_task"]["t2"]
    assert (t2["cell_C_trio_mean"], t2["h3_delta_qwen"], t2["h3_directional_pass"]) == (None, None, None)
    assert t2["h2_directional_pass"] is True  # the rest of the task still counts
    assert summary["aggregate"]["h3_pass_count"] == 2
    assert summary["evalgate"]["not_judged"][0]["cell"] == "t2/C"
    assert any(
        r.startswith("t2/C: no trio mean: not judged: response ") for r in summary["evalgate"]["reasons"]
    )
    assert code == 1


def test_an_errored_judge_leaves_its_object_null_and_the_trio_unheard(pilot_dir, tmp_path):
    code, records, summary = pilot(pilot_dir, tmp_path, TRIO, fail_when={1: "Ref: fern."})  # gpt on t2/B
    t2b = records[5]
    assert t2b["cell_id"] == "B" and t2b["judge_gpt"] == dict.fromkeys(JUDGE_KEYS)
    assert t2b["judge_opus"]["mean"] == 3.0  # the judges heard keep their scores
    assert "scripted failure" in t2b["evalgate"]["judges"]["gpt"]["error"]
    assert t2b["trio_mean"] is None and t2b["evalgate"]["quorum"] == {"heard": 2, "judges": 3, "needed": 2}
    assert (
        "every judge must be heard" in t2b["evalgate"]["why_no_trio"]
    )  # knowledge-work: on_judge_error fail
    assert summary["total_judge_calls"] == 36 and summary["evalgate"]["judge_errors"] == 1
    assert summary["results_per_task"]["t2"]["h2_delta_opus"] is None
    reasons = summary["evalgate"]["reasons"]
    assert (
        "hypothesis h2 (opus, B-A): direction right in 1 of 3 tasks (needs 2); "
        "no delta in t2 (a cell has no trio mean)" in reasons
    )
    assert any(r.startswith("t2/B: no trio mean: 2 of 3 judges heard") for r in reasons)
    assert code == 1


def test_fewer_tasks_than_the_hypotheses_need(pilot_dir, tmp_path):
    trio = {k: v for k, v in TRIO.items() if k[0] == "t1"}
    code, records, summary = pilot(pilot_dir, tmp_path, trio, tasks=[{"id": "t1", "item": "tasks/t1.yml"}])
    assert len(records) == 4 and list(summary["results_per_task"]) == ["t1"]
    assert summary["aggregate"]["h2_pass_count"] == 1
    assert summary["evalgate"]["reasons"][0] == (
        "hypothesis h2 (opus, B-A): direction right in 1 of 1 tasks (needs 2); the pilot has only 1 task(s)"
    )
    assert code == 1


def test_named_hypotheses_and_cells_of_any_name(pilot_dir, tmp_path):
    trio = {k: v for k, v in TRIO.items() if k[1] in "AB"}
    cells = [
        {"id": "A", "model": "m", "configuration": "solo"},
        {"id": "B", "model": "m", "configuration": "h"},
    ]
    hyp = [{"id": "h9", "name": "harness", "higher": "B", "lower": "A"}]
    code, _, summary = pilot(pilot_dir, tmp_path, trio, cells=cells, hypotheses=hyp)
    assert summary["results_per_task"]["t3"] == {
        "cell_A_trio_mean": 4.0,
        "cell_B_trio_mean": 4.0,
        "h9_delta_harness": 0.0,
        "h9_directional_pass": False,
    }
    assert summary["aggregate"] == {"h9_pass_count": 2, "critical_failures": 0, "pilot_verdict": "PASS"}
    assert code == 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"typo": 1}, "typo: Extra inputs are not permitted"),
        (
            {
                "cells": [
                    {"id": "X", "model": "m", "configuration": "c"},
                    {"id": "Y", "model": "m", "configuration": "c"},
                ]
            },
            "hypotheses: none given, and the protocol's defaults",
        ),
        (
            {"hypotheses": [{"id": "h2", "name": "opus", "higher": "E", "lower": "A"}]},
            "h2 names a cell not in cells",
        ),
        ({"hypotheses": [{"id": "H-2", "name": "opus", "higher": "B", "lower": "A"}]}, "hypotheses.0.id"),
        (
            {"judges": [{"spec": "command:true", "label": "x"}, {"spec": "command:false", "label": "x"}]},
            "duplicate label x",
        ),
        ({"judges": []}, "judges: none"),
        ({"rubric": "no-such-rubric"}, "rubric: unknown rubric 'no-such-rubric'"),
        # path templates: these were a KeyError, IndexError or ValueError traceback when the run began
        ({"responses": "responses/{task}/{cell_id}.md"}, "responses: {task}: the only"),
        ({"responses": "responses/{0}.md"}, "responses: {0}: the only"),
        ({"metrics": "m/{task_id/x.json"}, "metrics: not a path template"),
        ({"metrics": "m/{task_id.__class__}.json"}, "metrics: {task_id.__class__}"),
        ({"metrics": "m/{cell_id!r}.json"}, "metrics: {cell_id!r}"),
        ({"prices": {"gpt-5": {"input": -1, "output": 2}}}, "prices.gpt-5.input"),
        ({"prices": {"gpt-5": {"input": 1}}}, "prices.gpt-5.output"),
    ],
)
def test_an_unusable_config_is_exit_2_naming_the_key(pilot_dir, capsys, changes, message):
    config = with_config(pilot_dir, **changes)
    assert run(["pilot", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"evalgate pilot: {config}: ") and message in err


def test_a_non_mapping_config_is_an_error(tmp_path):
    bad = tmp_path / "pilot.yml"
    bad.write_text("- just a list\n", encoding="utf-8")
    with pytest.raises(PilotError, match="mapping"):
        load_pilot_config(bad)


def test_labels_derive_from_the_model_and_are_made_unique(tmp_path):
    assert derived_label("claude-opus-4.7") == "claude_opus_4_7"
    assert derived_label("/opt/judges/GPT-5") == "gpt_5"
    refs = [JudgeRef(spec="a"), JudgeRef(spec="b"), JudgeRef(spec="c", label="gpt_4o"), JudgeRef(spec="d")]
    labels = judge_labels(refs, ["gpt-4o", "gpt-4o", "x", "minimax"], tmp_path / "p.yml")
    assert labels == ["gpt_4o_2", "gpt_4o_3", "gpt_4o", "minimax"]


def test_bare_judge_specs_get_derived_labels(pilot_dir, tmp_path):
    specs = trio_specs(tmp_path, TRIO)
    argv = ["pilot", str(pilot_dir / "pilot.yml"), "--output", str(tmp_path / "o")]
    for spec in specs:
        argv += ["--judge", spec]
    run(argv)
    first = json.loads((tmp_path / "o" / "pilot.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert [k for k in first if k.startswith("judge_")] == [
        "judge_judge_opus",
        "judge_judge_gpt",
        "judge_judge_minimax",
    ]


def test_pilot_prices_its_judges_and_records_their_tokens_and_latency(pilot_dir, tmp_path, monkeypatch):
    """One judge of the trio is the openai backend against a loopback model server (11 tokens in, 7
    out per call) with `prices:` for its model: its calls have a cost and tokens in every record and
    in the summary; the scripted command judges report neither, so the totals say what is unknown."""
    from tests.support.openai_server import ModelServer, ServerReply

    reply = {"dimensions": {d: {"score": 4, "evidence": [], "reasoning": "r"} for d in KW_DIMS}}
    with ModelServer(lambda _body: ServerReply(text=json.dumps(reply))) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        specs = trio_specs(tmp_path, TRIO)
        judges = [{"spec": "openai:loopback-model", "label": "priced"}]
        judges += [{"spec": s, "label": label} for s, label in zip(specs[1:], LABELS[1:], strict=True)]
        prices = {"loopback-model": {"input": 1000.0, "output": 2000.0}}  # $0.025 a call
        config = with_config(pilot_dir, judges=judges, prices=prices)
        run(["pilot", str(config), "--output", str(tmp_path / "out")])
        assert len(server.requests) == 12
    records = [
        json.loads(x) for x in (tmp_path / "out" / "pilot.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    summary = json.loads((tmp_path / "out" / "pilot-summary.json").read_text(encoding="utf-8"))
    jsonschema.validate(records[0], json.loads((SCHEMAS / "pilot-record.schema.json").read_text("utf-8")))
    jsonschema.validate(summary, json.loads((SCHEMAS / "pilot-summary.schema.json").read_text("utf-8")))
    priced = records[0]["evalgate"]["judges"]["priced"]
    assert (priced["tokens_in"], priced["tokens_out"], priced["cost_usd"]) == (11, 7, pytest.approx(0.025))
    assert isinstance(priced["latency_ms"], int)
    scripted = records[0]["evalgate"]["judges"]["gpt"]
    assert (scripted["tokens_in"], scripted["cost_usd"]) == (None, None)
    usage = summary["evalgate"]["judge_usage"]
    assert usage["calls"] == 36 and usage["latency_ms"] >= 0
    assert usage["tokens_in"] == {"total": None, "at_least": 132, "unknown_calls": 24}
    assert usage["cost_usd"] == {"total": None, "at_least": pytest.approx(0.3), "unknown_calls": 24}
    assert summary["total_cost_usd"] is None  # unknown costs are never summed as 0
