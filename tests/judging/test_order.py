"""The criteria order per call: drawn from (seed, document, judge, attempt), so it differs across
documents, judges and attempts and is the same on a re-run; recorded with every judgement."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evalgate.judging.prompt import dimension_order, render_judge_prompt
from evalgate.rubric import load_rubric
from evalgate.validity.history import load_history
from tests.support.cli import run_in
from tests.test_rubric_packs import KW_DIMS, KW_ITEM, judge_spec, write_item

RESEARCH = "# {title}\n\n## Findings\n\n### Executive Summary\n\nThe {title} answer is yes.\n"
JUDGED = [
    "executive_summary_first_sentence",
    "claim_source_accuracy",
    "epistemic_labeling",
    "key_finding_specificity",
]


def ids(dims) -> list[str]:
    return [d.id for d in dims]


def test_the_order_is_drawn_per_document_judge_and_attempt_and_repeats_exactly():
    rubric = load_rubric("research-loop")
    base = ids(dimension_order(rubric, 0, "document one"))
    assert base == ids(dimension_order(rubric, 0, "document one"))
    others = [
        ids(dimension_order(rubric, 0, "document two")),
        ids(dimension_order(rubric, 0, "document one", judge=1)),
        ids(dimension_order(rubric, 0, "document one", attempt=1)),
        ids(dimension_order(rubric, 1, "document one")),
    ]
    assert all(sorted(o) == sorted(base) for o in others)
    assert all(o != base for o in others)


def test_over_many_calls_every_criterion_visits_every_place():
    rubric = load_rubric("knowledge-work")
    places = Counter(
        (dim.id, place)
        for n in range(600)
        for place, dim in enumerate(dimension_order(rubric, 0, f"item {n}"), 1)
    )
    # 600 calls, 6 criteria, 6 places: 100 expected in each cell; a fixed order would put 600 in six
    assert len(places) == 36
    assert min(places.values()) > 60 and max(places.values()) < 140


def test_the_prompt_lists_the_criteria_in_the_drawn_order():
    rubric = load_rubric("research-loop")
    document = RESEARCH.format(title="alpha")
    prompt = render_judge_prompt(rubric, document, 0, judge=2, attempt=1)
    assert prompt.dimension_order == tuple(ids(dimension_order(rubric, 0, document, judge=2, attempt=1)))
    reply_format = prompt.text[prompt.text.rfind("## Reply format") :]
    assert sorted(JUDGED, key=lambda i: reply_format.index(f"| {i} |")) == list(prompt.dimension_order)


def _logged_orders(log: Path) -> dict[str, list[str]]:
    """The criteria order of every prompt a scripted judge logged (from its reply format's rows), by
    the item it was about (`Item one`); calls run in parallel, so the log's own order is not theirs."""
    orders = {}
    for prompt in log.read_text(encoding="utf-8").split("\n\0\n"):
        if "## Reply format" not in prompt:
            continue
        tail = prompt[prompt.rfind("## Reply format") :]
        item = next(name for name in ("one", "two") if f"Item {name}:" in prompt)
        orders[f"{item}.yml"] = [line.split('"')[1] for line in tail.splitlines() if line.startswith('    "')]
    return orders


def _check(workdir: Path, judges: list[str], *paths: str, history: Path | None = None) -> dict:
    argv = ["check", *paths, "--no-cache", "--format", "json", "--output", "out.json"]
    for judge in judges:
        argv += ["--judge", judge]
    if history is not None:
        argv += ["--history", str(history)]
    run_in(workdir, argv)
    return json.loads((workdir / "out.json").read_text(encoding="utf-8"))


@pytest.fixture
def two_items(tmp_path: Path) -> Path:
    for name in ("one", "two"):
        write_item(
            tmp_path / f"{name}.yml", {**KW_ITEM, "response": f"## Answer\n\nItem {name}: change the rule.\n"}
        )
    (tmp_path / ".evalgate.yml").write_text("rubric: knowledge-work\n", encoding="utf-8")
    return tmp_path


def test_two_documents_in_one_run_get_different_orders_and_a_rerun_the_same(two_items: Path):
    log = two_items / "prompts.log"
    judge = judge_spec(two_items, "judge", {"default": 4, "log": str(log)})
    first = _check(two_items, [judge], "one.yml", "two.yml", history=two_items / "history.jsonl")
    orders = _logged_orders(log)
    assert len(orders) == 2 and orders["one.yml"] != orders["two.yml"]
    assert all(sorted(o) == sorted(KW_DIMS) for o in orders.values())
    # recorded with each judgement: the call's order, and each score's place in it
    recorded = {r["path"]: r["judges"][0]["criteria_order"] for r in first["results"]}
    assert recorded == orders
    for result in first["results"]:
        order = result["judges"][0]["criteria_order"]
        for dim in result["dimensions"]:
            (score,) = dim["judge_scores"]
            assert score["position"] == order.index(dim["id"]) + 1
    history = {r.path: r.orders for r in load_history(two_items / "history.jsonl")}
    assert {path: [list(o) for o in h] for path, h in history.items()} == {
        p: [o] for p, o in recorded.items()
    }

    log.unlink()
    again = _check(two_items, [judge], "one.yml", "two.yml")
    assert _logged_orders(log) == orders
    assert [r["judges"][0]["criteria_order"] for r in again["results"]] == [
        r["judges"][0]["criteria_order"] for r in first["results"]
    ]


def test_the_judges_of_a_trio_each_get_their_own_order(two_items: Path):
    logs = [two_items / f"judge-{n}.log" for n in range(3)]
    judges = [
        judge_spec(two_items, f"judge-{n}", {"default": 4, "log": str(log)}) for n, log in enumerate(logs)
    ]
    report = _check(two_items, judges, "one.yml")
    orders = [_logged_orders(log)["one.yml"] for log in logs]
    assert len({tuple(o) for o in orders}) == 3
    (result,) = report["results"]
    assert [j["criteria_order"] for j in result["judges"]] == orders
