"""The knowledge-work and support-reply packs: valid, published schema, blind prompts, mechanical
amounts, and `evalgate check --rubric PACK FILE --judge ...` end to end on structured YAML items."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

import evalgate.rubric
from evalgate.checks import run_check
from evalgate.document import parse_document
from evalgate.gate import decide
from evalgate.judging.inputs import InputItemError, judge_view
from evalgate.judging.prompt import PromptError, render_judge_prompt
from evalgate.results import DimensionResult, Status
from evalgate.rubric import Rubric, load_rubric, pack_names, parse_rubric, rubric_json_schema
from evalgate.yamlsafe import built
from tests.support.cli import run_in

ROOT = Path(__file__).resolve().parent.parent
SCRIPTED_JUDGE = ROOT / "tests" / "support" / "scripted_judge.py"
SCHEMA_FILE = ROOT / "evalgate" / "schemas" / "rubric.schema.json"
KW_DIMS = ["completeness", "accuracy", "synthesis", "judgment", "actionability", "structure"]
SR_CRITERIA = [
    "addresses_question",
    "cites_current_policy",
    "amount_matches_tools",
    "states_next_step",
    "no_unsupported_claims",
    "tone_appropriate",
]

KW_ITEM = {
    "id": "cache-eviction",
    "persona": "Tech lead of a team running a shared build cache.",
    "scenario": "The cache fills every Tuesday and evicts the artefacts the release job needs.",
    "question": "Should we buy more storage or change the eviction rule?",
    "materials": [
        {
            "name": "usage graph",
            "text": "Usage climbs 9 percent a week; half the bytes are branch builds older than 14 days.",
        },
        {"name": "quote", "text": "Doubling storage costs 400 dollars a month."},
    ],
    "response": "## Answer\n\nChange the eviction rule first: drop branch builds after 14 days.\n",
    # Not a part the rubric names: must never reach the judge.
    "model": "zeta-large-7",
    "configuration": "multiplier-on",
    "labels": {"completeness": 4},
}

SR_ITEM = {
    "id": "late-parcel",
    "customer_question": "My parcel came a week late. Can I have the delivery fee back?",
    "policy": {
        "id": "late",
        "version": "2026-10",
        "current": True,
        "text": "Late orders get the delivery fee back.",
    },
    "tool_results": [{"tool": "refund_create", "result": {"amount": 4.5, "currency": "EUR"}}],
    "reply": "Sorry for the wait. I have refunded EUR 4.50; you will see it within five days.\n",
}


def write_item(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def judge_spec(tmp_path: Path, name: str, spec: dict) -> str:
    """A command judge with its own executable name, so each judge has its own label in results."""
    spec_file = tmp_path / f"{name}.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    exe = tmp_path / name
    exe.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{SCRIPTED_JUDGE}' '{spec_file}'\n", encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return f"command:{exe}"


def test_packs_ship_and_validate():
    assert {"knowledge-work", "support-reply", "research-loop"} <= set(pack_names())
    kw, sr = load_rubric("knowledge-work"), load_rubric("support-reply")
    assert [d.id for d in kw.judged] == KW_DIMS
    assert all(sorted(d.anchors) == [1, 2, 3, 4, 5] for d in kw.judged)
    assert [d.id for d in sr.judged] == SR_CRITERIA
    assert (sr.scale.min, sr.scale.max) == (0, 1)
    for d in sr.judged:
        assert d.description.strip().count(".") == 1, d.id  # one sentence
        assert sorted(e.meets for e in d.examples) == [False, True], d.id
    assert sr.dimension("amount_matches_tools").mechanical == "amount_matches_tools_computed"


def test_published_schema_is_current_and_validates_the_packs():
    on_disk = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert on_disk == rubric_json_schema(), "regenerate evalgate/schemas/rubric.schema.json"
    for name in ("knowledge-work", "support-reply", "research-loop"):
        raw = yaml.safe_load((ROOT / "evalgate" / "rubrics" / f"{name}.yml").read_text(encoding="utf-8"))
        jsonschema.validate(raw, on_disk)


def test_every_shipped_pack_loads_plainly_as_pydantic_validates_it():
    # A pack loads from its YAML without pydantic (yamlsafe.built) and gives the object pydantic's
    # validation of the same YAML gives, types included (repr shows 4 and 4.0 apart, which == does
    # not); built() must take every pack itself, or each run would import pydantic for it.
    for name in pack_names():
        text = (ROOT / "evalgate" / "rubrics" / f"{name}.yml").read_text(encoding="utf-8")
        validated = parse_rubric(text, name)
        assert repr(built(Rubric, yaml.safe_load(text))) == repr(validated), name
        assert repr(load_rubric(name)) == repr(validated), name
        assert load_rubric(name).version == validated.version, name


def _packs_in(tmp_path, monkeypatch) -> Path:
    for pack in (ROOT / "evalgate" / "rubrics").glob("*.yml"):
        (tmp_path / pack.name).write_bytes(pack.read_bytes())
    monkeypatch.setattr(evalgate.rubric, "PACKS_DIR", tmp_path)
    return tmp_path


def test_an_edited_pack_loads_as_edited(tmp_path, monkeypatch):
    edited = _packs_in(tmp_path, monkeypatch) / "research-loop.yml"
    assert load_rubric("research-loop") is load_rubric("research-loop")  # built once while unchanged
    edited.write_text(edited.read_text(encoding="utf-8").replace("min_mean: 4.0", "min_mean: 3.5"))
    rubric = load_rubric("research-loop")
    assert rubric.policy.min_mean == 3.5
    assert rubric.version != load_rubric("knowledge-work").version
    edited.write_text("id: research-loop\ntitle: T\ndimensions: []\n")
    with pytest.raises(evalgate.rubric.RubricError, match="rubric pack research-loop: invalid rubric"):
        load_rubric("research-loop")
    edited.write_text("id: research-loop\ntitle: T\ndimensions: [\n")
    with pytest.raises(evalgate.rubric.RubricError, match="rubric pack research-loop: not valid YAML"):
        load_rubric("research-loop")


def test_a_pack_added_to_the_directory_needs_no_other_step(tmp_path, monkeypatch):
    packs = _packs_in(tmp_path, monkeypatch)
    text = (packs / "support-reply.yml").read_text(encoding="utf-8")
    (packs / "support-escalation.yml").write_text(
        text.replace("id: support-reply", "id: support-escalation", 1), encoding="utf-8"
    )
    assert "support-escalation" in pack_names()
    rubric = load_rubric("support-escalation")
    assert rubric.id == "support-escalation"
    assert repr(rubric) == repr(parse_rubric((packs / "support-escalation.yml").read_text(), "x"))


def test_knowledge_work_prompt_is_blind_and_asks_for_json_only():
    kw = load_rubric("knowledge-work")
    doc = parse_document(yaml.safe_dump(KW_ITEM, sort_keys=False), "item.yml")
    text = render_judge_prompt(kw, doc, seed=3).text
    for hidden in ("zeta-large-7", "multiplier-on", "labels", "configuration"):
        assert hidden not in text
    for shown in ("## persona", "## scenario", "## question", "### usage graph", "Change the eviction rule"):
        assert shown in text
    assert "exactly one JSON object and nothing else" in text
    assert "one-to-two-sentence rationale" in text


def test_support_reply_prompt_shuffles_criteria_by_seed_and_never_states_length():
    sr = load_rubric("support-reply")
    doc = parse_document(yaml.safe_dump(SR_ITEM, sort_keys=False), "item.yml")
    orders = {render_judge_prompt(sr, doc, seed=s).dimension_order for s in range(6)}
    assert len(orders) > 1
    assert render_judge_prompt(sr, doc, seed=2).text == render_judge_prompt(sr, doc, seed=2).text
    text = render_judge_prompt(sr, doc, seed=2).text
    assert "Example (does not meet)" in text and "Example (meets)" in text
    assert "verbatim span of the reply" in text
    for word in ("length", "words long", "characters"):
        assert word not in text.lower()
    assert "amount_matches_tools_computed" not in text  # deterministic: never asked of the judge


def test_missing_required_part_is_a_clear_error():
    sr = load_rubric("support-reply")
    with pytest.raises(InputItemError, match="missing part 'reply'"):
        judge_view(sr, yaml.safe_dump({k: v for k, v in SR_ITEM.items() if k != "reply"}), "x.yml")
    with pytest.raises(PromptError, match=r"not valid YAML|must be a YAML mapping"):
        render_judge_prompt(sr, parse_document("# just markdown\n", "x.md"), seed=1)


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("You get EUR 4.50 back.", 1),
        ("You get EUR 4.5 back.", 1),
        ("You get GBP 4.50 back.", 0),  # right number, wrong currency
        ("You get EUR 5.40 back.", 0),
        ("No amounts here.", 1),
        ("EUR 4.50 now and EUR 1,200.00 later.", 0),
    ],
)
def test_amounts_are_computed_against_tool_results(reply, score):
    doc = parse_document(yaml.safe_dump({**SR_ITEM, "reply": reply}, sort_keys=False), "item.yml")
    result = run_check("amount_matches_tools_computed", doc)
    assert result.score == score
    assert len(result.findings) == 1 - score  # one mismatched amount in each failing reply


def test_judge_and_mechanical_disagreement_is_reported():
    sr = load_rubric("support-reply")
    dims = [
        DimensionResult(
            d.id, d.kind, Status.SCORED, score=1 if d.id != "amount_matches_tools_computed" else 0
        )
        for d in sr.dimensions
    ]
    r = decide("item.yml", dims, sr)
    assert any(
        "the judge scored 1 but the mechanical check amount_matches_tools_computed computed 0" in w
        for w in r.warnings
    )
    assert r.verdict.value == "FAIL"


def test_a_criterion_verdict_without_evidence_is_flagged():
    sr = load_rubric("support-reply")
    dims = [DimensionResult(d.id, d.kind, Status.SCORED, score=1) for d in sr.dimensions]
    warnings = decide("item.yml", dims, sr).warnings
    assert len(warnings) == 6
    assert "tone_appropriate: the judge's verdict carries no evidence span" in warnings


def check_output(
    tmp_path: Path, rubric: str, item: Path, judges: list[str], capsys, fmt: str = "json"
) -> tuple[int, str]:
    """`evalgate check ITEM --rubric R --judge ...` run in `tmp_path`: its exit code and output."""
    argv = ["check", str(item), "--rubric", rubric, "--root", str(tmp_path), "--no-cache", "--format", fmt]
    for j in judges:
        argv += ["--judge", j]
    code = run_in(tmp_path, argv)
    return code, capsys.readouterr().out


def _check(tmp_path: Path, rubric: str, item: Path, judges: list[str], capsys) -> tuple[int, dict]:
    code, out = check_output(tmp_path, rubric, item, judges, capsys)
    return code, json.loads(out)


def test_check_knowledge_work_item_with_a_trio(tmp_path, capsys):
    item = write_item(tmp_path / "item.yml", KW_ITEM)
    judges = [
        judge_spec(tmp_path, "judge-a", {"default": 4}),
        judge_spec(
            tmp_path,
            "judge-b",
            {"default": 4, "scores": {"structure": 3}, "reasoning": {"structure": "Padded."}},
        ),
        judge_spec(tmp_path, "judge-c", {"default": 3}),
    ]
    code, report = _check(tmp_path, "knowledge-work", item, judges, capsys)
    (result,) = report["results"]
    assert [d["id"] for d in result["dimensions"]] == KW_DIMS  # no research checks ran
    assert all(len(d["judge_scores"]) == 3 for d in result["dimensions"])
    # judge means 4.0, 23/6 = 3.83, 3.0: two of three >= 3.5; trio mean 3.61 -> PASS_ADEQUATE
    assert result["verdict"] == "PASS", result["reasons"]
    assert result["band"] == "PASS_ADEQUATE"
    assert code == 0


def test_check_reports_the_trio_fail_rule(tmp_path, capsys):
    item = write_item(tmp_path / "item.yml", KW_ITEM)
    judges = [
        judge_spec(tmp_path, "judge-a", {"default": 2}),
        judge_spec(tmp_path, "judge-b", {"default": 3, "scores": {"structure": 2}}),  # 17/6 = 2.83
        judge_spec(tmp_path, "judge-c", {"default": 5}),
    ]
    code, report = _check(tmp_path, "knowledge-work", item, judges, capsys)
    (result,) = report["results"]
    # judge means 2.0, 2.83, 5.0: two of three below 3.0 (the trio FAIL), none of two below 2.0
    trio_fail = [r for r in result["reasons"] if r.startswith("trio FAIL")]
    assert len(trio_fail) == 1 and "2 of 3 judges' means are below 3 (" in trio_fail[0]
    assert not any(r.startswith("critical fail") for r in result["reasons"])
    assert "trio_fail" in result["decision"]["decided_by"]
    assert result["verdict"] == "FAIL" and code == 1


def test_check_support_reply_item(tmp_path, capsys):
    item = write_item(tmp_path / "late-parcel.yml", SR_ITEM)
    spec = {"default": 1, "evidence": {c: "I have refunded EUR 4.50" for c in SR_CRITERIA}}
    code, report = _check(tmp_path, "support-reply", item, [judge_spec(tmp_path, "judge", spec)], capsys)
    (result,) = report["results"]
    ids = {d["id"]: d for d in result["dimensions"]}
    assert set(ids) == {*SR_CRITERIA, "amount_matches_tools_computed"}
    assert ids["amount_matches_tools_computed"]["score"] == 1
    assert all(e["verified"] for c in SR_CRITERIA for e in ids[c]["evidence"])
    assert result["verdict"] == "PASS" and code == 0


GOLD = ROOT / "gold"


@pytest.mark.parametrize("item", sorted((GOLD / "support-reply").glob("*.yml")), ids=lambda p: p.stem)
def test_computed_amounts_agree_with_the_gold_labels(item):
    labels = yaml.safe_load(item.read_text(encoding="utf-8"))["labels"]
    result = run_check(
        "amount_matches_tools_computed", parse_document(item.read_text(encoding="utf-8"), str(item))
    )
    assert result.score == int(labels["amount_matches_tools"]["met"])


KW_GOLD_ITEMS = sorted(p for p in (GOLD / "knowledge-work").glob("*.yml") if p.name != "labels.yml")


@pytest.mark.parametrize("item", KW_GOLD_ITEMS, ids=lambda p: p.stem)
def test_gold_knowledge_work_items_render_without_their_labels(item):
    raw = item.read_text(encoding="utf-8")
    data = yaml.safe_load(raw)
    text = render_judge_prompt(load_rubric("knowledge-work"), parse_document(raw, str(item)), seed=0).text
    assert " ".join(data["why"].split()[:6]) not in " ".join(text.split())
    assert "\nlabels:" not in text and "## response" in text and "## materials" in text
