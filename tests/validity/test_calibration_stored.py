"""Calibration as a stored artefact: inline gold labels, several annotators and what they agree on,
the floors (agreement and kappa), `calibrate --record`, and what `check` says with a record:
calibrated, stale, for other judges, and `require-calibration` keeping an uncalibrated judge's
failures from failing a file. Judges are scripted command judges the test controls."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from evalgate.cli import main
from evalgate.report.load import load_report
from evalgate.rubric import load_rubric
from evalgate.validity.gold import GoldError, consensus, load_gold
from tests.support.reports import posted

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "gold"
TABLE_JUDGE = ROOT / "tests" / "fixtures" / "canary" / "scripted_judge.py"  # research-loop's table
JSON_JUDGE = ROOT / "tests" / "support" / "scripted_judge.py"  # JSON replies (knowledge-work)
JUDGED = (
    "executive_summary_first_sentence",
    "claim_source_accuracy",
    "epistemic_labeling",
    "key_finding_specificity",
)
CLEAN = "2026-11-03-judge-reply-cache-determinism.md"  # structurally clean
VAGUE = "2026-11-12-report-annotations-or-comments.md"  # structurally clean; its summary fails a judge


def _command(*argv: str | Path) -> str:
    return "command:" + shlex.join([sys.executable, *map(str, argv)])


def table_judge(tmp_path: Path, scores: dict[str, dict[str, int]], name: str = "judge") -> str:
    """A research-loop judge: the first marker found in the document picks its scores ("*" else)."""
    spec = tmp_path / f"{name}.json"
    spec.write_text(json.dumps(scores), encoding="utf-8")
    return _command(TABLE_JUDGE, spec)


def json_judge(tmp_path: Path, spec: dict, name: str = "judge") -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return _command(JSON_JUDGE, path)


def calibrate(gold: Path, judge: str, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = main(["calibrate", str(gold), "--judge", judge, "--no-cache", "--format", "json", *extra])
    captured = capsys.readouterr()
    assert captured.out, captured.err
    return code, json.loads(captured.out)


def _knowledge_work_by_text() -> list[list[object]]:
    """Scores that answer each shipped knowledge-work item with its inline labels."""
    rules = []
    for path in sorted((GOLD / "knowledge-work").glob("*.yml")):
        if path.name == "labels.yml":
            continue
        item = yaml.safe_load(path.read_text(encoding="utf-8"))
        first_line = item["response"].strip().splitlines()[-1]
        rules.append([first_line, item["labels"]])
    return rules


# ---- inline labels ---------------------------------------------------------------------------------


def test_the_shipped_knowledge_work_and_support_reply_gold_sets_load_their_inline_labels() -> None:
    kw = load_gold(GOLD / "knowledge-work")
    assert kw.rubric == "knowledge-work" and len(kw.items) == 3
    by_file = {item.file: item.judged for item in kw.items}
    assert by_file["flaky-suite-budget.yml"]["accuracy"] == 1
    # a second reader labelled all three (gold/README.md, "Two annotators"): 14 labels alike, 4 not
    assert kw.annotators == ("author", "second-reader")
    kw_dims = {d.id for d in load_rubric("knowledge-work").judged}
    assert all(set(item.annotations["second-reader"]) == kw_dims for item in kw.items)
    agreed = consensus(kw)
    assert (agreed.agreed, agreed.single, len(agreed.disputed)) == (14, 0, 4)
    sr = load_gold(GOLD / "support-reply")
    assert sr.rubric == "support-reply" and len(sr.items) == 4
    wrong = next(item for item in sr.items if item.file == "refund-wrong-amount.yml")
    assert wrong.judged["amount_matches_tools"] == 0 and wrong.judged["addresses_question"] == 1


def test_inline_gold_labels_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "knowledge-work"
    shutil.copytree(GOLD / "knowledge-work", gold, ignore=shutil.ignore_patterns("labels.yml"))
    matching = json_judge(tmp_path, {"default": 3, "by_text": _knowledge_work_by_text()})
    code, result = calibrate(gold, matching, capsys=capsys)
    assert result["overall"]["items"] == 18 and result["overall"]["exact"] == 1.0  # 3 items x 6 labels
    assert code == 0 and result["passed"] is True
    flat = json_judge(tmp_path, {"default": 3}, "flat")
    code, result = calibrate(gold, flat, capsys=capsys)
    assert code == 1 and result["overall"]["items"] == 18 and result["overall"]["exact"] < 0.6
    # as shipped, with the second reader's labels: held to the 14 labels both annotators gave alike
    shutil.copy(GOLD / "knowledge-work" / "labels.yml", gold / "labels.yml")
    code, result = calibrate(gold, matching, capsys=capsys)
    assert result["overall"]["items"] == 14 and result["human_agreement"]["pairs"]["disputed"] == 4


def test_a_gold_item_labelled_twice_by_its_first_annotator_is_refused(tmp_path: Path) -> None:
    gold = tmp_path / "knowledge-work"
    shutil.copytree(GOLD / "knowledge-work", gold, ignore=shutil.ignore_patterns("labels.yml"))
    (gold / "labels.yml").write_text(
        "items:\n  - file: flaky-suite-budget.yml\n    judged: {accuracy: 2}\n", encoding="utf-8"
    )
    with pytest.raises(GoldError, match=r"flaky-suite-budget\.yml has its own `labels:`"):
        load_gold(gold)


def test_a_label_off_the_scale_or_of_no_dimension_names_the_file(tmp_path: Path) -> None:
    gold = tmp_path / "knowledge-work"
    gold.mkdir()
    item = yaml.safe_load((GOLD / "knowledge-work" / "flaky-suite-budget.yml").read_text(encoding="utf-8"))
    (gold / "a.yml").write_text(yaml.safe_dump({**item, "labels": {"accuracy": 9}}), encoding="utf-8")
    with pytest.raises(GoldError, match=r"a\.yml: first annotator: accuracy: 9 is outside the scale 1-5"):
        load_gold(gold)
    (gold / "a.yml").write_text(yaml.safe_dump({**item, "labels": {"charm": 3}}), encoding="utf-8")
    with pytest.raises(GoldError, match="charm is not a judged dimension of knowledge-work"):
        load_gold(gold)


# ---- several annotators ------------------------------------------------------------------------------


def _two_annotators(tmp_path: Path) -> Path:
    """Two research-loop items labelled by two annotators, who differ on one label."""
    gold = tmp_path / "gold"
    gold.mkdir()
    for name in (CLEAN, VAGUE):
        shutil.copy(GOLD / "research-loop" / name, gold / name)
    first = {CLEAN: (5, 4, 4, 5), VAGUE: (1, 4, 5, 5)}
    second = {CLEAN: (5, 4, 5, 5), VAGUE: (1, 4, 5, 5)}  # epistemic_labeling of CLEAN: 4 against 5
    items = [
        {
            "file": name,
            "judged": dict(zip(JUDGED, first[name], strict=True)),
            "annotations": {"second-reader": dict(zip(JUDGED, second[name], strict=True))},
        }
        for name in (CLEAN, VAGUE)
    ]
    labels = {"rubric": "research-loop", "annotators": ["author", "second-reader"], "items": items}
    (gold / "labels.yml").write_text(json.dumps(labels), encoding="utf-8")
    return gold


def test_the_judge_is_held_only_to_labels_the_annotators_agree_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _two_annotators(tmp_path)
    agreed = consensus(load_gold(gold))
    assert (agreed.agreed, agreed.single, agreed.disputed) == (
        7,
        0,
        (f"{CLEAN}: epistemic_labeling: author 4, second-reader 5",),
    )
    scores = {
        "This item examines whether": dict(zip(JUDGED, (1, 4, 5, 5), strict=True)),  # VAGUE's summary
        "*": dict(zip(JUDGED, (5, 4, 1, 5), strict=True)),  # CLEAN: a 1 where the humans differ
    }
    code, result = calibrate(gold, table_judge(tmp_path, scores), "--min-kappa", "-1", capsys=capsys)
    # the disputed label is not a label: the judge's 1 there is no miss
    assert result["overall"]["items"] == 7 and result["overall"]["exact"] == 1.0 and code == 0
    human = result["human_agreement"]
    assert human["annotators"] == ["author", "second-reader"] and human["pairs"]["disputed"] == 1
    assert human["dimensions"]["epistemic_labeling"]["exact"] == 0.5
    assert human["dimensions"]["executive_summary_first_sentence"]["kappa"] == 1.0
    main(["calibrate", str(gold), "--judge", table_judge(tmp_path, scores), "--no-cache"])
    text = capsys.readouterr().out
    assert "human agreement (author, second-reader):" in text
    assert f"humans differ: {CLEAN}: epistemic_labeling: author 4, second-reader 5" in text


def test_an_annotation_by_an_annotator_not_listed_is_refused(tmp_path: Path) -> None:
    gold = _two_annotators(tmp_path)
    labels = json.loads((gold / "labels.yml").read_text(encoding="utf-8"))
    labels["annotators"] = ["author"]
    (gold / "labels.yml").write_text(json.dumps(labels), encoding="utf-8")
    with pytest.raises(GoldError, match=r"annotations\.second-reader: not one of the further annotators"):
        load_gold(gold)


# ---- the floors -------------------------------------------------------------------------------------


def test_high_agreement_with_no_kappa_fails_the_kappa_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The modal-label judge of docs/validity.md: 75% exact, 96% within one on the six research-loop
    items, kappa 0 on every judged dimension. The exact bar alone passed it; the kappa floor does not."""
    gold = tmp_path / "gold"
    shutil.copytree(GOLD, gold, ignore=shutil.ignore_patterns("knowledge-work", "support-reply", "canary"))
    modal = table_judge(tmp_path, {"*": dict(zip(JUDGED, (5, 4, 4, 5), strict=True))})
    code, result = calibrate(gold, modal, capsys=capsys)
    assert result["overall"]["exact"] == 0.75 and result["overall"]["within_one"] == pytest.approx(
        23 / 24, abs=1e-4
    )
    assert code == 1 and result["floors"]["kappa_kind"] == "quadratic"
    assert all("kappa (quadratic) 0.00 is below 0.40" in f for f in result["failures"])
    assert len(result["failures"]) == 4
    # the floors come from the rubric (a copy with its own), the configuration, or the options
    rubric = yaml.safe_load((ROOT / "evalgate" / "rubrics" / "research-loop.yml").read_text(encoding="utf-8"))
    rubric["calibration"] = {"kappa": 0.0}
    (tmp_path / "lenient.yml").write_text(yaml.safe_dump(rubric), encoding="utf-8")
    assert calibrate(gold, modal, "--rubric", str(tmp_path / "lenient.yml"), capsys=capsys)[0] == 0
    (tmp_path / "floors.yml").write_text("calibration-floors: {kappa: 0.0, kappa_kind: linear}\n", "utf-8")
    code, result = calibrate(gold, modal, "--config", str(tmp_path / "floors.yml"), capsys=capsys)
    assert code == 0 and result["floors"]["kappa_kind"] == "linear"
    assert calibrate(gold, modal, "--min-kappa", "0", capsys=capsys)[0] == 0
    assert calibrate(gold, modal, "--min-kappa", "0", "--min-exact", "0.8", capsys=capsys)[0] == 1


def test_a_binary_rubric_holds_cohens_kappa(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "support-reply"
    shutil.copytree(GOLD / "support-reply", gold)
    code, result = calibrate(gold, json_judge(tmp_path, {"default": 1}), capsys=capsys)
    assert result["floors"]["kappa_kind"] == "cohen" and result["overall"]["items"] == 24
    assert code == 1  # says "met" to everything: kappa 0 where a criterion is ever unmet


# ---- the record, and what check makes of it ---------------------------------------------------------


def _clean_gold(tmp_path: Path) -> tuple[Path, str]:
    """A gold set of the two structurally clean items and a judge that scores them as labelled."""
    gold = tmp_path / "gold"
    gold.mkdir()
    labels = {CLEAN: (5, 4, 4, 5), VAGUE: (1, 4, 5, 5)}
    items = []
    for name, scores in labels.items():
        shutil.copy(GOLD / "research-loop" / name, gold / name)
        items.append({"file": name, "judged": dict(zip(JUDGED, scores, strict=True))})
    (gold / "labels.yml").write_text(json.dumps({"rubric": "research-loop", "items": items}), "utf-8")
    scores = {"This item examines whether": dict(zip(JUDGED, labels[VAGUE], strict=True))}
    scores["*"] = dict(zip(JUDGED, labels[CLEAN], strict=True))
    return gold, table_judge(tmp_path, scores)


def test_record_writes_the_date_judges_versions_and_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, judge = _clean_gold(tmp_path)
    record_file = tmp_path / "calibration.json"
    assert calibrate(gold, judge, "--record", str(record_file), capsys=capsys)[0] == 0
    record = json.loads(record_file.read_text(encoding="utf-8"))
    assert record["kind"] == "evalgate-calibration" and re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["date"]
    )
    rubric = load_rubric("research-loop")
    from evalgate.judging.prompt import prompt_version

    assert record["rubric"] == {
        "id": "research-loop",
        "version": rubric.version,
        "prompt": prompt_version(rubric),
    }
    assert record["judges"] == [{"spec": judge, "models": [sys.executable]}]
    assert record["gold"]["items"] == 2 and record["overall"]["items"] == 8 and record["passed"] is True
    by_dim = {d["dimension"]: d for d in record["dimensions"]}
    assert set(by_dim) == set(JUDGED)
    assert by_dim["executive_summary_first_sentence"]["kappa"]["weighted_quadratic"] == 1.0
    assert by_dim["claim_source_accuracy"]["exact"] == 1.0


def _recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str, Path]:
    """The clean gold set, its judge, and the record of calibrating the one on the other."""
    gold, judge = _clean_gold(tmp_path)
    record_file = tmp_path / "calibration.json"
    assert calibrate(gold, judge, "--record", str(record_file), capsys=capsys)[0] == 0
    return gold, judge, record_file


def _check(
    doc: Path, judge: str, *extra: str, capsys: pytest.CaptureFixture[str], fmt: str = "json"
) -> tuple[int, str]:
    code = main(["check", str(doc), "--judge", judge, "--no-cache", "--format", fmt, *extra])
    return code, capsys.readouterr().out


def test_check_cites_a_current_calibration_and_calls_a_stale_one_a_signal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, judge, record_file = _recorded(tmp_path, capsys)
    doc = gold / CLEAN
    _, out = _check(doc, judge, "--calibration", str(record_file), capsys=capsys)
    status = json.loads(out)["summary"]["calibration"]
    assert status["current"] is True and status["text"].startswith("calibrated on ")
    assert "kappa (quadratic) executive_summary_first_sentence 1.00" in status["text"]
    _, text = _check(doc, judge, "--calibration", str(record_file), capsys=capsys, fmt="text")
    assert "calibration: calibrated on" in text

    # the rubric edited since (one anchor reworded): its version moves, the record is stale
    rubric = yaml.safe_load((ROOT / "evalgate" / "rubrics" / "research-loop.yml").read_text(encoding="utf-8"))
    rubric["dimensions"][-1]["anchors"][5] += " Reworded."
    (tmp_path / "edited.yml").write_text(yaml.safe_dump(rubric), encoding="utf-8")
    _, out = _check(
        doc, judge, "--calibration", str(record_file), "--rubric", str(tmp_path / "edited.yml"), capsys=capsys
    )
    stale = json.loads(out)["summary"]["calibration"]
    assert stale["current"] is False
    assert stale["text"].startswith(
        "not calibrated for this rubric and prompt version: scores are a signal, not a measurement"
    )
    _, markdown = _check(
        doc,
        judge,
        "--calibration",
        str(record_file),
        "--rubric",
        str(tmp_path / "edited.yml"),
        capsys=capsys,
        fmt="markdown",
    )
    assert "⚠️ **Not calibrated**: not calibrated for this rubric and prompt version" in markdown

    other = table_judge(tmp_path, {"*": dict.fromkeys(JUDGED, 4)}, "other")
    _, out = _check(doc, other, "--calibration", str(record_file), capsys=capsys)
    assert json.loads(out)["summary"]["calibration"]["text"].startswith("not calibrated for these judges")
    _, out = _check(doc, judge, "--calibration", str(tmp_path / "none.json"), capsys=capsys)
    assert "not calibrated: " in json.loads(out)["summary"]["calibration"]["text"]
    assert "none.json: not found" in json.loads(out)["summary"]["calibration"]["text"]


def test_a_calibration_below_todays_floors_is_not_current(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, judge, record_file = _recorded(tmp_path, capsys)
    record = json.loads(record_file.read_text(encoding="utf-8"))
    record["overall"]["exact"] = 0.5  # as if measured so, under looser floors
    record_file.write_text(json.dumps(record), encoding="utf-8")
    _, out = _check(gold / CLEAN, judge, "--calibration", str(record_file), capsys=capsys)
    status = json.loads(out)["summary"]["calibration"]
    assert (
        status["current"] is False
        and "did not meet its floors (exact agreement 50% is below 60%)" in status["text"]
    )


def test_require_calibration_keeps_an_uncalibrated_judges_failures_from_failing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], github_contract: Path
) -> None:
    gold, judge = _clean_gold(tmp_path)
    doc = gold / VAGUE  # structurally clean; the judge hard-fails its summary (score 1)
    # no record at all: the judged hard fail is reported, not counted; the structural checks pass it
    code, out = _check(doc, judge, "--require-calibration", capsys=capsys)
    result = json.loads(out)["results"][0]
    assert code == 0 and result["verdict"] == "PASS"
    assert [c["text"] for c in result["uncounted"]] == [
        "hard fail: executive_summary_first_sentence scored 1, below 3"
    ]
    _, text = _check(doc, judge, "--require-calibration", capsys=capsys, fmt="text")
    assert "NOT COUNTED (require-calibration): hard fail: executive_summary_first_sentence" in text
    assert "NOT COUNTED: judged failures in 1 file(s) did not fail them" in text

    # with the record of this judge, rubric and prompt: the judge's failure fails the file
    record_file = tmp_path / "calibration.json"
    calibrate(gold, judge, "--record", str(record_file), capsys=capsys)
    code, out = _check(doc, judge, "--require-calibration", "--calibration", str(record_file), capsys=capsys)
    assert code == 1 and json.loads(out)["results"][0]["verdict"] == "FAIL"

    # the markdown every GitHub surface carries says so loudly, and the results file keeps it
    (tmp_path / "results.json").write_text(
        _check(doc, judge, "--require-calibration", capsys=capsys)[1], "utf-8"
    )
    report = load_report(tmp_path / "results.json")
    assert report.results[0].uncounted and report.calibration is not None and report.calibration.required
    check, comment = posted(report, github_contract)
    for body in (check["output"]["summary"], comment["body"]):
        assert "⚠️ **Judged failures not counted** in 1 file(s)" in body
        assert "Judged failures **not counted**" in body
    assert check["conclusion"] == "success" and "judged failures not counted" in check["output"]["title"]


def test_the_action_input_sets_require_calibration() -> None:
    from evalgate.github.action import ActionInputError, build_config, read_inputs

    inputs = read_inputs({"INPUT_REQUIRE-CALIBRATION": "true"})
    assert inputs.require_calibration is True and build_config(inputs).require_calibration is True
    assert read_inputs({}).require_calibration is None
    with pytest.raises(ActionInputError, match="require-calibration"):
        read_inputs({"INPUT_REQUIRE-CALIBRATION": "yes"})


def test_a_measurement_judges_every_item_whatever_the_run_settings_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A judging budget, budgets per document and require-calibration are for gating runs: calibrate
    judges every gold item under them (a budget of one call would leave one item judged)."""
    gold, judge = _clean_gold(tmp_path)
    settings = tmp_path / "settings.yml"
    settings.write_text(
        "budget: {calls: 1}\nbudgets: {seconds-per-document: 1e-9, over-budget: fail}\n"
        "require-calibration: true\n",
        encoding="utf-8",
    )
    code, result = calibrate(gold, judge, "--config", str(settings), capsys=capsys)
    assert code == 0 and result["items"] == 2 and result["overall"]["items"] == 8
