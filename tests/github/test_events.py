"""events.py: real GitHub payloads (read in place, SHAs rewritten) against real git repositories."""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evalgate.github.changes import EMPTY_TREE, ZERO_SHA
from evalgate.github.events import EventError, Targets, load_event, targets_from_event, validate_files
from tests.support.gitrepo import GitRepo

PATHS = "Research/completed/**/*.md"
A = "Research/completed/a.md"
B = "Research/completed/2026/b.md"
FEATURE_DOC = "Research/completed/feature.md"
MAIN_DOC = "Research/completed/main-later.md"


def payload(events_dir: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((events_dir / name).read_text(encoding="utf-8"))
    return copy.deepcopy(data)


@dataclass
class Project:
    """main: root -> second; feature branches from second; main then moves on."""

    work: GitRepo
    origin: GitRepo
    root: str
    second: str
    feature: str
    main: str
    tmp: Path

    def ci(self, branch: str, depth: int = 1) -> Path:
        """A fresh shallow clone of `branch`, as actions/checkout leaves the workspace."""
        dest = self.tmp / f"ci-{branch}-{len(list(self.tmp.iterdir()))}"
        return self.origin.clone(dest, depth=depth, branch=branch).path


@pytest.fixture
def project(tmp_path: Path) -> Project:
    work = GitRepo.init(tmp_path / "work")
    root = work.commit("root", {A: "# A\n", "README.md": "readme\n"})
    second = work.commit("second", {B: "# B\n", A: "# A\nmore\n"})
    work.checkout("feature", new=True)
    work.commit("feature 1", {FEATURE_DOC: "# F\n"})
    feature = work.commit("feature 2", {FEATURE_DOC: "# F\nbody\n", "notes.txt": "n\n"})
    work.checkout("main")
    main = work.commit("main moves on", {MAIN_DOC: "# M\n"})
    work.checkout("pr-merge", new=True)  # what refs/pull/N/merge holds: feature merged into main
    work.merge("feature")
    work.checkout("main")
    origin = work.publish(tmp_path / "origin.git")
    return Project(work, origin, root, second, feature, main, tmp_path)


def evaluated(targets: Targets) -> list[str]:
    return sorted(targets.paths)


# ------------------------------------------------------------------------------------------ push


def test_push_diffs_before_to_after_in_a_shallow_clone(project: Project, events_dir: Path) -> None:
    event = payload(events_dir, "push.4.json")
    event.update(ref="refs/heads/main", before=project.root, after=project.main, created=False)
    targets = targets_from_event("push", event, project.ci("main"), paths=PATHS)
    assert (targets.mode, targets.base, targets.head, targets.report_sha) == (
        "diff",
        project.root,
        project.main,
        project.main,
    )
    assert evaluated(targets) == [B, A, MAIN_DOC]
    assert {c.path: c.status for c in targets.changed} == {A: "modified", B: "added", MAIN_DOC: "added"}
    assert targets.pr_number is None


def test_new_branch_is_compared_with_the_default_branch(project: Project, events_dir: Path) -> None:
    event = payload(events_dir, "push.4.json")  # a real "created" push: before is 40 zeros
    assert event["before"] == ZERO_SHA and event["created"] is True
    event.update(ref="refs/heads/feature", after=project.feature)
    event["repository"]["default_branch"] = "main"

    targets = targets_from_event("push", event, project.ci("feature"), paths=PATHS)

    assert targets.base == project.main and targets.mode == "diff"
    assert evaluated(targets) == [FEATURE_DOC]  # not main's later doc: three-dot from the merge base
    assert "new branch" in targets.notes[0] and "origin/main" in targets.notes[0]


def test_first_push_of_the_default_branch_evaluates_every_matching_file(
    project: Project, events_dir: Path
) -> None:
    event = payload(events_dir, "push.5.json")
    event.update(after=project.second)  # ref is refs/heads/master, the payload's default branch
    ci = project.ci("main")
    targets = targets_from_event("push", event, ci, paths=PATHS, default_branch="master")
    assert targets.base == EMPTY_TREE
    assert evaluated(targets) == [B, A]
    assert all(c.status == "added" for c in targets.changed)


def test_forced_push_compares_with_the_merge_base_of_the_old_tip(project: Project, events_dir: Path) -> None:
    work = project.work
    work.checkout("feature")
    work.reset_hard(project.feature + "~1")
    rewritten = work.commit("feature 2, rewritten", {"Research/completed/rewritten.md": "# R\n"})
    work.push("feature", force=True)
    event = payload(events_dir, "push.4.json")
    event.update(ref="refs/heads/feature", before=project.feature, after=rewritten, forced=True)
    event["created"] = False

    targets = targets_from_event("push", event, project.ci("feature"), paths=PATHS, default_branch="main")

    assert evaluated(targets) == ["Research/completed/rewritten.md"]
    # Diffed from the merge base ('feature 1'): the dropped commit's FEATURE_DOC edit is no change.
    assert targets.base == project.feature and targets.head == rewritten
    assert [c.path for c in targets.changed] == ["Research/completed/rewritten.md"]
    assert "forced push" in targets.notes[0]


def test_forced_push_with_a_vanished_old_tip_falls_back_to_the_default_branch(
    project: Project, events_dir: Path
) -> None:
    event = payload(events_dir, "push.4.json")
    event.update(ref="refs/heads/feature", before="ab" * 20, after=project.feature, forced=True)
    event["created"] = False
    targets = targets_from_event("push", event, project.ci("feature"), paths=PATHS, default_branch="main")
    assert targets.base == project.main
    assert evaluated(targets) == [FEATURE_DOC]
    assert "ab" * 20 in targets.notes[0] and "origin/main" in targets.notes[0]


@pytest.mark.parametrize("fixture", ["push.0.json", "push.1.json", "push.6.json"])
def test_tag_pushes_and_deleted_refs_evaluate_nothing(fixture: str, events_dir: Path, tmp_path: Path) -> None:
    targets = targets_from_event("push", payload(events_dir, fixture), tmp_path, paths=PATHS)
    assert targets.mode == "none" and targets.paths == () and targets.report_sha is None
    assert "nothing to evaluate" in targets.notes[0]


# ---------------------------------------------------------------------------------- pull request


@pytest.mark.parametrize(
    "fixture",
    ["pull_request.opened.0.json", "pull_request.reopened.18.json", "pull_request.synchronize.22.json"],
)
def test_pull_request_diffs_base_three_dot_head_and_reports_on_head(
    fixture: str, project: Project, events_dir: Path
) -> None:
    event = payload(events_dir, fixture)
    event["pull_request"]["base"]["sha"] = project.main
    event["pull_request"]["head"]["sha"] = project.feature
    ci = project.ci("pr-merge")  # GITHUB_SHA is the merge commit; head and base are its parents

    targets = targets_from_event("pull_request", event, ci, paths=PATHS)

    # the diff ends at what is checked out and read: the merge commit, from its first parent (base.sha)
    merge = GitRepo(ci).head()
    assert (targets.base, targets.head) == (project.main, merge) and merge != project.feature
    assert targets.report_sha == project.feature
    assert targets.pr_number == 2
    assert evaluated(targets) == [FEATURE_DOC]
    assert "checked-out merge commit" in targets.notes[0]


def test_a_pull_request_checked_out_at_its_head_diffs_from_the_merge_bases(
    project: Project, events_dir: Path
) -> None:
    """A workflow that checks out head.sha instead of the merge commit: base.sha...head.sha."""
    event = payload(events_dir, "pull_request.synchronize.22.json")
    event["pull_request"]["base"]["sha"] = project.main
    event["pull_request"]["head"]["sha"] = project.feature
    targets = targets_from_event("pull_request", event, project.ci("feature"), paths=PATHS)
    assert (targets.base, targets.head, targets.report_sha) == (
        project.main,
        project.feature,
        project.feature,
    )
    assert evaluated(targets) == [FEATURE_DOC]  # not main's later document


def test_closed_pull_request_evaluates_nothing(events_dir: Path, tmp_path: Path) -> None:
    event = payload(events_dir, "pull_request.opened.0.json")
    event["action"] = "closed"
    targets = targets_from_event("pull_request", event, tmp_path, paths=PATHS)
    assert targets.mode == "none" and "'closed'" in targets.notes[0]


def test_merge_group_diffs_base_sha_to_head_sha(project: Project) -> None:
    group = {"base_sha": project.second, "head_sha": project.feature}
    event = {"action": "checks_requested", "merge_group": group}
    targets = targets_from_event("merge_group", event, project.ci("feature"), paths=PATHS)
    assert evaluated(targets) == [FEATURE_DOC] and targets.report_sha == project.feature


def test_missing_or_malformed_sha_names_the_field(events_dir: Path, tmp_path: Path) -> None:
    event = payload(events_dir, "pull_request.opened.0.json")
    event["pull_request"]["head"]["sha"] = "HEAD; rm -rf /"
    with pytest.raises(EventError, match=r"pull_request\.head\.sha is not a commit sha"):
        targets_from_event("pull_request", event, tmp_path, paths=PATHS)
    event["pull_request"]["head"]["sha"] = "f" * 40
    del event["pull_request"]["base"]
    with pytest.raises(EventError, match=r"no pull_request\.base\.sha"):
        targets_from_event("pull_request", event, tmp_path, paths=PATHS)


def test_unsupported_event_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EventError, match="'issues' is not supported; evalgate runs on push"):
        targets_from_event("issues", {}, tmp_path, paths=PATHS)


# ----------------------------------------------------------------------------- workflow_dispatch


@pytest.mark.parametrize("fixture", ["workflow_dispatch.0.json", "workflow_dispatch.1.json"])
def test_dispatch_without_files_evaluates_every_matching_file_at_head(
    fixture: str, project: Project, events_dir: Path
) -> None:
    ci = project.ci("main")
    targets = targets_from_event("workflow_dispatch", payload(events_dir, fixture), ci, paths=PATHS)
    assert targets.mode == "all" and targets.report_sha == project.main
    assert evaluated(targets) == [B, A, MAIN_DOC]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    repo = GitRepo.init(tmp_path / "ws")
    repo.commit(
        "docs",
        {
            A: "# A\n",
            "Research/completed/with space.md": "s\n",
            "Research/completed/ünïcødé.md": "u\n",
            "Research/completed/-dash.md": "d\n",
            "Research/completed/new\nline.md": "n\n",
            "Research/completed/notes.txt": "t\n",
            "secret.md": "not research\n",
        },
    )
    outside = tmp_path / "outside.md"
    outside.write_text("outside\n")
    (repo.path / "Research/completed/escape.md").symlink_to(outside)
    (repo.path / "Research/completed/inside-link.md").symlink_to(repo.path / "secret.md")
    (repo.path / "Research/completed/ok-link.md").symlink_to("a.md")
    (repo.path / "Research/completed/dir.md").mkdir()
    return repo.path


def test_dispatch_files_are_validated_one_by_one(workspace: Path, events_dir: Path) -> None:
    listed = "\n".join(
        [
            A,
            "./Research/completed/with space.md",
            "  Research/completed/ünïcødé.md  ",
            "Research/completed/-dash.md",
            A,  # duplicate: evaluated once
            "Research/completed/../../secret.md",
            "/etc/passwd",
            "C:\\Windows\\win.ini",
            "Research/completed/escape.md",
            "Research/completed/inside-link.md",
            "Research/completed/ok-link.md",
            "Research/completed/notes.txt",
            "Research/completed/missing.md",
            "Research/completed/dir.md",
            "Research/completed/.git/config.md",
            "",
        ]
    )
    event = payload(events_dir, "workflow_dispatch.0.json")
    targets = targets_from_event("workflow_dispatch", event, workspace, paths=PATHS, files=listed)

    assert targets.mode == "files"
    assert targets.paths == (
        A,
        "Research/completed/with space.md",
        "Research/completed/ünïcødé.md",
        "Research/completed/-dash.md",
        "Research/completed/ok-link.md",
    )
    reasons = dict(targets.rejected)
    assert reasons["Research/completed/../../secret.md"].startswith("contains '..'")
    assert reasons["/etc/passwd"].startswith("is an absolute path")
    assert reasons["C:\\Windows\\win.ini"].startswith("is an absolute path")
    assert reasons["Research/completed/escape.md"] == "resolves outside the workspace (through a symlink)"
    assert "symlink to 'secret.md'" in reasons["Research/completed/inside-link.md"]
    assert reasons["Research/completed/notes.txt"] == f"does not match paths {PATHS!r}"
    assert reasons["Research/completed/missing.md"] == "no such file"
    assert reasons["Research/completed/dir.md"] == "is not a file in the workspace"
    assert reasons["Research/completed/.git/config.md"] == "is inside .git"
    assert len(targets.rejected) == 9


def test_dispatch_files_input_falls_back_to_the_payload(workspace: Path, events_dir: Path) -> None:
    event = payload(events_dir, "workflow_dispatch.1.json")
    event["inputs"] = {"files": f"{A}\nsecret.md"}
    targets = targets_from_event("workflow_dispatch", event, workspace, paths=PATHS)
    assert targets.paths == (A,) and [p for p, _ in targets.rejected] == ["secret.md"]


def test_a_name_with_a_newline_cannot_be_listed_but_is_found_by_paths(workspace: Path) -> None:
    accepted, rejected = validate_files(workspace, "Research/completed/new\nline.md", PATHS)
    assert accepted == ()
    assert rejected == (
        ("Research/completed/new", f"does not match paths {PATHS!r}"),
        ("line.md", f"does not match paths {PATHS!r}"),
    )
    targets = targets_from_event("workflow_dispatch", {"inputs": {}}, workspace, paths=PATHS)
    assert "Research/completed/new\nline.md" in targets.paths
    assert "Research/completed/escape.md" not in targets.paths  # untracked symlinks are not at HEAD


def test_committed_symlink_escaping_the_workspace_is_never_evaluated(tmp_path: Path) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    base = repo.commit("base", {A: "# A\n"})
    (repo.path / "Research/completed/evil.md").symlink_to("/etc/hostname")
    repo.run("add", "Research/completed/evil.md")
    head = repo.commit("add a symlink")
    event = {"ref": "refs/heads/main", "before": base, "after": head}
    targets = targets_from_event("push", event, repo.path, paths=PATHS)
    assert [c.path for c in targets.changed] == ["Research/completed/evil.md"]
    assert targets.paths == ()
    assert targets.rejected == (
        ("Research/completed/evil.md", "resolves outside the workspace (through a symlink)"),
    )


# -------------------------------------------------------------------------------------- loading


def test_load_event_infers_the_name_of_every_real_payload(events_dir: Path) -> None:
    files = sorted(events_dir.glob("*.json"))
    assert files
    for path in files:
        name, data = load_event(path)
        assert name == path.name.split(".")[0], path.name
        assert data == json.loads(path.read_text(encoding="utf-8"))


def test_load_event_errors_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / "event.json"
    bad.write_text("{not json")
    with pytest.raises(EventError, match="is not valid JSON"):
        load_event(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(EventError, match="is not a JSON object"):
        load_event(bad)
    bad.write_text('{"zen": "Keep it logically awesome."}')
    with pytest.raises(EventError, match="pass the event name"):
        load_event(bad)
    assert load_event(bad, "ping") == ("ping", {"zen": "Keep it logically awesome."})
    with pytest.raises(EventError, match="cannot read the event payload"):
        load_event(tmp_path / "absent.json")
    assert os.path.exists(bad)
