"""Every configuration, rubric and pilot example in the README and docs/ is one the code accepts: a
user copies them as they are. (Workflow excerpts are held by tests/github/test_action_yml.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from evalgate.config import parse_config
from evalgate.rubric import load_rubric
from evalgate.validity.pilot_config import load_pilot_config

ROOT = Path(__file__).resolve().parents[1]


def _yaml_blocks(doc: str, marker: str) -> list[str]:
    text = (ROOT / doc).read_text(encoding="utf-8")
    return [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if marker in b]


def test_the_readme_configuration_is_valid() -> None:
    (block,) = _yaml_blocks("README.md", "on-judge-error:")
    config = parse_config(block, "README.md")
    assert config.acronyms.expansions == {"TPU": "Tensor Processing Unit"}
    assert config.rubric == "research-loop"


def test_the_ensemble_policy_in_docs_is_a_valid_rubric_policy(tmp_path: Path) -> None:
    (block,) = _yaml_blocks("docs/ensembles.md", "strict_pass_judges:")
    pack = yaml.safe_load((ROOT / "evalgate" / "rubrics" / "knowledge-work.yml").read_text(encoding="utf-8"))
    pack["policy"] = yaml.safe_load(block)["policy"]
    path = tmp_path / "documented.yml"
    path.write_text(yaml.safe_dump(pack, sort_keys=False), encoding="utf-8")
    rubric = load_rubric(str(path))
    assert rubric.policy.ensemble.fail_judges == 2


def test_the_pilot_config_in_docs_loads(tmp_path: Path) -> None:
    (block,) = _yaml_blocks("docs/ensembles.md", "pilot_id:")
    path = tmp_path / "pilot.yml"
    path.write_text(block, encoding="utf-8")
    config = load_pilot_config(path)
    assert [c.id for c in config.cells] == ["A", "B", "C", "D"] and config.min_tasks == 2


def test_the_pilot_record_and_summary_shown_in_docs_match_the_published_schemas() -> None:
    import json

    import jsonschema

    from evalgate.validity.pilot_schema import SCHEMAS

    text = (ROOT / "docs" / "ensembles.md").read_text(encoding="utf-8")
    record, summary = (json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S))
    jsonschema.validate(record, SCHEMAS["pilot-record"]())
    jsonschema.validate(summary, SCHEMAS["pilot-summary"]())
    assert record["trio_fail"] is True and summary["aggregate"]["pilot_verdict"] == "FAIL"


def test_every_example_workflow_pins_the_copilot_model() -> None:
    """A bare `copilot` judge takes whatever model Copilot defaults to that day, and every score moves
    with it: the workflows a user copies name the model (docs/action.md says how to change it)."""
    workflows = [
        *sorted((ROOT / "docs" / "workflows").glob("*.yml")),
        ROOT / ".github/workflows/calibrate.yml",
    ]
    texts = {path.name: path.read_text(encoding="utf-8") for path in workflows}
    texts["README.md"] = "\n".join(_yaml_blocks("README.md", "judges:"))
    texts["action.md"] = "\n".join(_yaml_blocks("docs/action.md", "judges:"))
    specs = {
        name: re.findall(r"(?:judges: |default: |--judge |JUDGE: )(copilot\S*)", text)
        for name, text in texts.items()
    }
    assert all(specs.values()), {name: found for name, found in specs.items() if not found}
    bare = {
        name: found
        for name, found in specs.items()
        if any(not re.fullmatch(r"copilot:[\w.-]+", s) for s in found)
    }
    assert not bare, bare


def test_the_existing_corpus_example_gates_pull_requests_and_the_merge_queue_on_new_findings() -> None:
    """docs/workflows/evalgate-existing-corpus.yml, read by the action's own input parser: its
    `gate-on: new` holds on both of its triggers, whatever `.evalgate.yml` says."""
    from evalgate.github.action import read_inputs
    from evalgate.github.baseline import choose_mode

    path = ROOT / "docs" / "workflows" / "evalgate-existing-corpus.yml"
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    triggers = set(workflow[True])  # YAML 1.1 reads the key `on` as True
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    (action,) = [step for step in steps if step.get("uses", "").startswith("OWNER/evalgate@")]
    given = {name: str(value) for name, value in action["with"].items() if "${{" not in str(value)}
    inputs = read_inputs({f"INPUT_{name.upper()}": value for name, value in given.items()})
    assert triggers == {"pull_request", "merge_group"} and inputs.gate_on == "new"
    assert all(choose_mode(trigger, inputs.gate_on, "all")[0] == "new" for trigger in triggers)
    (checkout,) = [step for step in steps if step.get("uses", "").startswith("actions/checkout@")]
    assert checkout["with"]["fetch-depth"] == 0  # the base commit's objects must be there
    assert "workflows/evalgate-existing-corpus.yml" in (ROOT / "docs" / "action.md").read_text(
        encoding="utf-8"
    )


def test_the_setups_in_action_md_are_workflows_a_user_can_copy(tmp_path: Path) -> None:
    """docs/action.md's complete workflows (the job-token setup among them) load as GitHub workflows,
    pass only inputs the action declares, and give the judge the job token only with the permission."""
    from tests.github.test_action_yml import _check_jsonschema, _judges_with_the_job_token

    declared = set(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
    workflows = [b for b in _yaml_blocks("docs/action.md", "jobs:") if "runs-on:" in b]
    assert workflows, "docs/action.md shows no complete workflow"
    for number, block in enumerate(workflows):
        path = tmp_path / f"setup-{number}.yml"
        path.write_text(block, encoding="utf-8")
        proc = _check_jsonschema("vendor.github-workflows", path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        workflow = yaml.safe_load(block)
        for job in workflow["jobs"].values():
            granted = {**workflow.get("permissions", {}), **job.get("permissions", {})}
            assert (granted.get("copilot-requests") == "write") == _judges_with_the_job_token(job)
            for step in job["steps"]:
                if step.get("uses", "").startswith("OWNER/evalgate@"):
                    assert set(step.get("with", {})) <= declared
    assert any("copilot-requests: write" in b and "${{ github.token }}" in b for b in workflows)
