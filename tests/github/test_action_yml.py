"""action.yml and every workflow: valid under SchemaStore's schemas (vendored in check-jsonschema, so
offline), the inputs and outputs the action promises, pinned actions, least privilege, no
pull_request_target, and the release workflow's rewrite to a prebuilt image by digest."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
EXAMPLES = sorted((ROOT / "docs" / "workflows").glob("*.yml"))
FULL_SHA = re.compile(r"^[0-9a-f]{40}$")
# The examples reference the published action by a placeholder owner that users replace (docs say so);
# every other action must be pinned by a full commit SHA.
PLACEHOLDER_ACTION = "OWNER/evalgate"


def _load(path: Path) -> dict[Any, Any]:
    # PyYAML reads the bare key `on` as True (YAML 1.1); map it back so tests can say "on".
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:
        data["on"] = data.pop(True)
    return data


def _check_jsonschema(schema: str, *paths: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("check-jsonschema")
    if exe is None:
        pytest.fail("check-jsonschema is not installed (pip install -e '.[test]')")
    return subprocess.run(
        [exe, "--builtin-schema", schema, *map(str, paths)], capture_output=True, text=True, timeout=120
    )


def test_action_yml_is_valid_under_the_github_action_schema() -> None:
    proc = _check_jsonschema("vendor.github-actions", ACTION)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_schema_check_rejects_a_broken_action(tmp_path: Path) -> None:
    broken = tmp_path / "action.yml"
    broken.write_text(ACTION.read_text().replace("using: docker", "using: dockr"))
    assert _check_jsonschema("vendor.github-actions", broken).returncode == 1


def test_action_is_a_docker_action_built_from_the_dockerfile() -> None:
    action = _load(ACTION)
    assert action["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert action["branding"]["icon"] and action["branding"]["color"]


def test_inputs_are_kebab_case_with_the_documented_defaults() -> None:
    inputs = _load(ACTION)["inputs"]
    expected = {
        "paths", "files", "rubric", "judges", "config", "github-token", "copilot-token",
        "check-name", "comment", "jobs", "seed", "cache-dir", "policy-from", "history-branch", "history-path",
    }  # fmt: skip
    assert expected <= set(inputs)
    assert inputs["policy-from"]["default"] == "base"  # a pull request never loosens its own gate
    assert inputs["history-branch"]["default"] == ""  # off unless asked: it needs contents: write
    assert inputs["history-path"]["default"] == "evalgate/history.jsonl"
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", name) for name in inputs)
    assert inputs["paths"]["default"] == "Research/completed/**/*.md"
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["check-name"]["default"] == "evalgate"
    assert inputs["comment"]["default"] == "on-failure"
    assert inputs["copilot-token"]["default"] == ""  # never defaults to the job token
    assert all(spec["description"] for spec in inputs.values())


def test_outputs_include_verdict_counts_and_results_file() -> None:
    outputs = _load(ACTION)["outputs"]
    assert {"verdict", "evaluated", "failed", "results-file"} <= set(outputs)


def test_every_declared_output_is_one_the_publisher_writes() -> None:
    from evalgate.github.publish import step_outputs
    from evalgate.results import Report, RubricRef

    written = set(step_outputs(Report(RubricRef("r", "1"), ()), "evalgate-results.json"))
    assert set(_load(ACTION)["outputs"]) <= written


@pytest.mark.parametrize("path", WORKFLOWS + EXAMPLES, ids=lambda p: p.name)
def test_workflow_is_valid_under_the_github_workflow_schema(path: Path) -> None:
    proc = _check_jsonschema("vendor.github-workflows", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _uses(workflow: dict[str, Any]) -> list[str]:
    return [
        step["uses"] for job in workflow["jobs"].values() for step in job.get("steps", []) if "uses" in step
    ]


def test_there_are_the_project_workflows_and_the_three_examples() -> None:
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "release.yml"}
    triggers = [set(_load(p)["on"]) for p in EXAMPLES]
    assert {"push"} in triggers and {"pull_request"} in triggers and {"workflow_dispatch"} in triggers


@pytest.mark.parametrize("path", WORKFLOWS + EXAMPLES, ids=lambda p: p.name)
def test_actions_are_pinned_by_full_commit_sha(path: Path) -> None:
    uses = _uses(_load(path))
    assert uses, "a workflow with no steps that use an action tests nothing here"
    for ref in uses:
        if ref.startswith(("./", "docker://")):
            continue
        action, _, version = ref.partition("@")
        if action == PLACEHOLDER_ACTION and path in EXAMPLES:
            continue
        assert FULL_SHA.match(version), f"{path.name}: {ref} is not pinned by a 40-hex commit SHA"


@pytest.mark.parametrize("path", WORKFLOWS + EXAMPLES, ids=lambda p: p.name)
def test_least_privilege_permissions_and_no_pull_request_target(path: Path) -> None:
    workflow = _load(path)
    assert "pull_request_target" not in workflow["on"]
    assert isinstance(workflow.get("permissions"), dict), "a top-level permissions block is required"
    assert workflow["permissions"].get("contents") == "read"
    grants: dict[str, str] = dict(workflow["permissions"])
    for job in workflow["jobs"].values():
        grants.update(job.get("permissions", {}))
    allowed = {"contents", "checks", "pull-requests", "statuses", "packages", "copilot-requests"}
    assert set(grants) <= allowed, f"{path.name}: unexpected permissions {set(grants) - allowed}"
    assert "write-all" not in str(workflow.get("permissions"))
    uses_evalgate = any(u.startswith(PLACEHOLDER_ACTION) or u == "./" for u in _uses(workflow))
    comments = any(
        step.get("with", {}).get("comment", "on-failure") != "never" or step.get("with", {}).get("suggest")
        for job in workflow["jobs"].values()
        for step in job.get("steps", [])
        if "evalgate" in step.get("uses", "")
    )
    if uses_evalgate:
        assert grants.get("checks") == "write"
    # pull-requests: write only where a comment or a suggestion review can be posted (a pull_request
    # trigger, comment on or suggest)
    if grants.get("pull-requests") == "write":
        assert "pull_request" in workflow["on"] and comments
    # copilot-requests: write only on a job that hands its own token to the Copilot judge
    for name, job in workflow["jobs"].items():
        granted = {**workflow["permissions"], **job.get("permissions", {})}.get("copilot-requests")
        assert granted in (None, "write") and (granted == "write") == _judges_with_the_job_token(job), name


def _judges_with_the_job_token(job: dict[str, Any]) -> bool:
    """Whether a step gives the job's own token to the Copilot judge (the action's `copilot-token`,
    or the CLI's COPILOT_GITHUB_TOKEN)."""
    return any(
        step.get("with", {}).get("copilot-token") == "${{ github.token }}"
        or step.get("env", {}).get("COPILOT_GITHUB_TOKEN") == "${{ github.token }}"
        for step in job.get("steps", [])
    )


@pytest.mark.parametrize("path", WORKFLOWS + EXAMPLES, ids=lambda p: p.name)
def test_no_untrusted_expression_is_interpolated_into_a_shell(path: Path) -> None:
    # ${{ inputs.* }} / ${{ github.event.* }} inside `run:` is script injection; pass through env instead
    for job in _load(path)["jobs"].values():
        for step in job.get("steps", []):
            script = step.get("run", "")
            assert not re.search(r"\$\{\{\s*(inputs|github\.event|github\.head_ref)", script), script


def test_checkouts_in_examples_fetch_enough_history_and_drop_credentials() -> None:
    for path in EXAMPLES:
        for job in _load(path)["jobs"].values():
            for step in job["steps"]:
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step["with"]["persist-credentials"] is False
                    if "workflow_dispatch" not in _load(path)["on"]:
                        assert step["with"]["fetch-depth"] == 0


def test_ci_runs_the_readme_test_command() -> None:
    steps = _load(ROOT / ".github" / "workflows" / "ci.yml")["jobs"]["test"]["steps"]
    assert any(step.get("run", "").strip() == "make test" for step in steps)


def _release_step(name_part: str) -> dict[str, Any]:
    steps = _load(ROOT / ".github" / "workflows" / "release.yml")["jobs"]["image"]["steps"]
    return next(s for s in steps if name_part in s.get("name", ""))


def test_release_rewrites_action_yml_to_a_valid_prebuilt_image_by_digest(tmp_path: Path) -> None:
    script = _release_step("major tag")["run"]
    sed_line = next(line.strip() for line in script.splitlines() if line.strip().startswith("sed "))
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(ACTION, work / "action.yml")
    ref = "ghcr.io/owner/evalgate@sha256:" + "ab" * 32
    proc = subprocess.run(
        ["bash", "-c", sed_line], cwd=work, env={"IMAGE_REF": ref, "PATH": "/usr/bin:/bin"}, timeout=30
    )
    assert proc.returncode == 0
    rewritten = _load(work / "action.yml")
    assert rewritten["runs"] == {"using": "docker", "image": f"docker://{ref}"}
    assert rewritten["inputs"] == _load(ACTION)["inputs"]
    result = _check_jsonschema("vendor.github-actions", work / "action.yml")
    assert result.returncode == 0, result.stdout


def test_release_records_the_digest_and_tags_by_version() -> None:
    script = _release_step("Build and push")["run"]
    assert '--tag "${image}:${version}"' in script
    assert "RepoDigests" in script and 'echo "ref=${image}@${digest}" >> "$GITHUB_OUTPUT"' in script
    assert "GITHUB_STEP_SUMMARY" in script


def _example(trigger: str) -> dict[str, Any]:
    (workflow,) = [w for w in map(_load, EXAMPLES) if set(w["on"]) == {trigger}]
    return workflow


def test_the_pull_request_example_runs_on_every_pr_so_it_can_be_a_required_check() -> None:
    # A path-filtered workflow never reports on a PR that touches no research file; branch protection
    # then waits forever for a required check. The example must not filter, and says why.
    trigger = _example("pull_request")["on"]["pull_request"]
    assert not {"paths", "paths-ignore", "branches-ignore"} & set(trigger or {})
    text = (ROOT / "docs" / "workflows" / "evalgate-pull-request.yml").read_text()
    assert "required status check" in text and "No `paths` filter" in text


@pytest.mark.parametrize(
    ("trigger", "keyed_by", "cancel"),
    [
        ("pull_request", "github.event.pull_request.number", True),  # a new push supersedes the old head
        ("push", "github.ref", False),  # every pushed commit gets its check run, in order
        ("workflow_dispatch", "inputs.files", False),  # the same files queue, others run in parallel
    ],
)
def test_each_example_has_a_concurrency_group(trigger: str, keyed_by: str, cancel: bool) -> None:
    concurrency = _example(trigger)["concurrency"]
    assert re.search(r"\$\{\{\s*" + re.escape(keyed_by) + r"\s*\}\}", concurrency["group"])
    assert concurrency["cancel-in-progress"] is cancel


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_no_example_runs_without_a_concurrency_group(path: Path) -> None:
    group = _load(path).get("concurrency", {}).get("group", "")
    assert group.startswith("evalgate-") and "${{" in group


def test_the_docs_explain_the_required_check_setup() -> None:
    text = (ROOT / "docs" / "action.md").read_text()
    section = text[text.index("## Required check") :]
    assert "ruleset" in section and "branch protection" in section.lower()
    assert "evalgate-pull-request.yml" in section


def test_ci_builds_the_image_and_runs_the_three_uses_on_a_runner() -> None:
    steps = _load(ROOT / ".github" / "workflows" / "ci.yml")["jobs"]["image"]["steps"]
    scripts = [step.get("run", "") for step in steps]
    (run,) = [s for s in scripts if "bench/image.py" in s]
    assert "--engine docker" in run and "--no-build" not in run  # GitHub's runners have Docker
    assert "--contract" in run and any("sha512" in s and "@octokit/openapi@" in s for s in scripts)
    assert (ROOT / "bench" / "image.py").exists()


def _documented_inputs() -> dict[str, str]:
    """docs/action.md's Inputs table: input name -> its Default cell."""
    text = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    section = text[text.index("## Inputs") : text.index("## Outputs")]
    rows = re.findall(r"^\| `([a-z-]+)` \|([^|]*)\|", section, re.M)
    return {name: default.strip() for name, default in rows}


def test_the_docs_input_table_lists_every_input_with_its_default() -> None:
    inputs = _load(ACTION)["inputs"]
    documented = _documented_inputs()
    assert list(documented) == list(inputs), "docs/action.md's Inputs table and action.yml differ"
    for name, spec in inputs.items():
        if spec["default"]:  # a literal default is shown as written in action.yml
            assert documented[name] == f"`{spec['default']}`", name


def _readme_workflow() -> dict[str, Any]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "runs-on:" in b]
    data = yaml.safe_load(block)
    data["on"] = data.pop(True)
    return data


def test_the_readme_workflow_excerpt_is_a_valid_workflow(tmp_path: Path) -> None:
    # A flow mapping holding an unquoted `${{ ... }}` is not YAML (the `{` opens a nested mapping):
    # the README's excerpt once had one and could not be copied.
    workflow = _readme_workflow()
    (tmp_path / "readme.yml").write_text(yaml.safe_dump({**workflow}).replace("True:", "'on':"))
    proc = _check_jsonschema("vendor.github-workflows", tmp_path / "readme.yml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert workflow["concurrency"]["group"].startswith("evalgate-")


def _evalgate_steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        step
        for job in workflow["jobs"].values()
        for step in job.get("steps", [])
        if step.get("uses", "").startswith(PLACEHOLDER_ACTION) or step.get("uses") == "./"
    ]


@pytest.mark.parametrize("name", [p.name for p in EXAMPLES] + ["README.md"])
def test_examples_pass_only_inputs_the_action_declares(name: str) -> None:
    workflow = _readme_workflow() if name == "README.md" else _load(ROOT / "docs" / "workflows" / name)
    declared = set(_load(ACTION)["inputs"])
    for step in _evalgate_steps(workflow):
        assert set(step.get("with", {})) <= declared, f"{name}: {set(step['with']) - declared}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_contents_write_only_where_a_history_branch_is_written(path: Path) -> None:
    # ... or in the review workflow's review_count job, which runs neither evalgate nor a judge: the
    # one job that commits to the repository holds nothing that reads a document's instructions
    workflow = _load(path)
    for name, job in workflow["jobs"].items():
        grants = {**workflow["permissions"], **job.get("permissions", {})}
        steps = _evalgate_steps({"jobs": {"j": job}})
        writes_history = any(step.get("with", {}).get("history-branch") for step in steps)
        counts_reviews = path.name == "evalgate-review.yml" and name == "review-count" and not steps
        assert (grants.get("contents") == "write") == (writes_history or counts_reviews), path.name


def _path_filter(pattern: str) -> re.Pattern[str]:
    """A workflow `paths:` glob as GitHub reads it: `**` crosses directories, `*` does not."""
    out = ""
    for part in re.split(r"(\*\*/|\*\*|\*)", pattern):
        out += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*"}.get(part, re.escape(part))
    return re.compile(out)


@pytest.mark.parametrize(
    "changed",
    [
        "Research/research-prompt.md",  # the protocol, wherever a repository keeps it
        "research-prompt.md",
        ".github/skills/research/SKILL.md",  # the skill files the protocol runs (seed 003)
        ".github/skills/citation-discipline/SKILL.md",
        "Research/_template.md",
        "evalgate/rubrics/research-loop.yml",
        "prompts/likert-table.md.j2",
        "gold/knowledge-work/labels.yml",
    ],
)
def test_calibration_reruns_when_the_protocol_or_its_skill_files_change(changed: str) -> None:
    on = _load(ROOT / ".github" / "workflows" / "calibrate.yml")["on"]
    for trigger in ("push", "pull_request"):
        assert any(_path_filter(p).fullmatch(changed) for p in on[trigger]["paths"]), (trigger, changed)
    assert not any(_path_filter(p).fullmatch("docs/action.md") for p in on["pull_request"]["paths"])
