"""The prompt version: a hash over the judge template, every template it includes and the repair
template; editing any of them changes it, and with it the recorded version, the cache key and the
history's series."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalgate.judging.prompt import PROMPTS_ENV, PromptError, prompt_version, prompts_dir, render_judge_prompt
from evalgate.rubric import load_rubric
from evalgate.validity.history import load_history, pass_rates
from tests.support.cli import run_in
from tests.test_rubric_packs import KW_ITEM, judge_spec, write_item


@pytest.fixture
def prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An editable copy of the shipped templates, in use."""
    copy = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), copy)
    monkeypatch.setenv(PROMPTS_ENV, str(copy))
    return copy


def _edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more sentence of instructions.\n", "utf-8")


@pytest.mark.parametrize(
    "template",
    ["likert-table.md.j2", "_dimensions.md.j2", "_document.md.j2", "_reply-table.md.j2", "repair.md.j2"],
)
def test_editing_the_template_or_anything_it_includes_changes_the_version(prompts: Path, template: str):
    rubric = load_rubric("research-loop")
    before = prompt_version(rubric)
    assert len(before) == 12
    assert render_judge_prompt(rubric, "# doc\n", 0).version == before
    _edit(prompts / template)
    assert prompt_version(rubric) != before
    assert render_judge_prompt(rubric, "# doc\n", 0).version == prompt_version(rubric)


def test_a_template_the_rubric_does_not_use_leaves_its_version(prompts: Path):
    research, knowledge = load_rubric("research-loop"), load_rubric("knowledge-work")
    before = prompt_version(research), prompt_version(knowledge)
    assert before[0] != before[1]  # two rubrics, two template sets
    _edit(prompts / "pairwise.md.j2")
    _edit(prompts / "likert-json-knowledge.md.j2")
    assert prompt_version(research) == before[0] and prompt_version(knowledge) != before[1]


def test_a_missing_template_is_a_prompt_error(prompts: Path):
    (prompts / "_dimensions.md.j2").unlink()
    with pytest.raises(PromptError, match=r"_dimensions\.md\.j2"):
        prompt_version(load_rubric("research-loop"))


def _check(workdir: Path, judge: str, *options: str) -> dict:
    argv = ["check", "item.yml", "--rubric", "knowledge-work", "--judge", judge, "--format", "json"]
    argv += ["--output", "out.json", "--cache-dir", "cache", "--history", "history.jsonl", *options]
    run_in(workdir, argv)
    return json.loads((workdir / "out.json").read_text(encoding="utf-8"))


def test_a_template_edit_is_recorded_misses_the_cache_and_starts_a_new_history_series(
    prompts: Path, tmp_path
):
    write_item(tmp_path / "item.yml", KW_ITEM)
    log = tmp_path / "calls.log"
    judge = judge_spec(tmp_path, "judge", {"default": 4, "log": str(log)})
    first = _check(tmp_path, judge)
    version = prompt_version(load_rubric("knowledge-work"))
    assert first["rubric"]["prompt"] == version
    again = _check(tmp_path, judge)
    assert again["results"][0]["judges"][0]["cached"] is True  # same prompt version: the cache answers
    calls = log.read_text(encoding="utf-8").count("\n\0\n")

    _edit(prompts / "likert-json-knowledge.md.j2")
    edited = _check(tmp_path, judge)
    assert edited["rubric"]["prompt"] != version
    assert edited["results"][0]["judges"][0]["cached"] is False
    assert log.read_text(encoding="utf-8").count("\n\0\n") == calls + 1

    records = load_history(tmp_path / "history.jsonl")
    assert [r.prompt_version for r in records] == [version, version, edited["rubric"]["prompt"]]
    assert list(pass_rates(records)) == [
        f"knowledge-work@{first['rubric']['version']} prompt {version}",
        f"knowledge-work@{first['rubric']['version']} prompt {edited['rubric']['prompt']}",
    ]


def test_a_structural_run_records_no_prompt_version(tmp_path):
    item = tmp_path / "a.md"
    item.write_text("# A\n\n## Findings\n", encoding="utf-8")
    run_in(tmp_path, ["check", "a.md", "--format", "json", "--output", "out.json"])
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["rubric"].get("prompt") is None
