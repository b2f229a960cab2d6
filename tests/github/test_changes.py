"""changes.py against real git repositories built in tmp dirs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from evalgate.github.changes import (
    EMPTY_TREE,
    ChangeDetectionError,
    ChangedFile,
    changed_files,
    ensure_history,
    files_at,
    format_changes,
    git,
    is_shallow,
    path_matches,
)
from tests.support.gitrepo import GitRepo

DOC = "Research/completed/topic.md"


def lines(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(1, n + 1))


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo.init(tmp_path / "work")


def by_path(changes: list[ChangedFile]) -> dict[str, ChangedFile]:
    return {c.path: c for c in changes}


# ------------------------------------------------------------------------------------ statuses


def test_add_modify_rename_delete_are_reported_with_added_ranges(repo: GitRepo) -> None:
    base = repo.commit(
        "base",
        {
            DOC: lines(10),
            "Research/completed/old-name.md": lines(30, "stable"),
            "Research/completed/gone.md": "bye\n",
            "README.md": "not research\n",
        },
    )
    repo.rename("Research/completed/old-name.md", "Research/completed/2026/new-name.md")
    edited = lines(10).replace("line 3\n", "line 3\nnew a\nnew b\n").replace("line 9\n", "changed 9\n")
    head = repo.commit(
        "change",
        {
            DOC: edited,
            "Research/completed/fresh.md": lines(4),
            "Research/completed/gone.md": None,
            "README.md": "still not research\n",
        },
    )

    changes = by_path(changed_files(repo.path, base, head, "Research/completed/**/*.md"))

    assert set(changes) == {
        DOC,
        "Research/completed/fresh.md",
        "Research/completed/gone.md",
        "Research/completed/2026/new-name.md",
    }
    assert changes[DOC].status == "modified"
    assert changes[DOC].added_lines == ((4, 5), (11, 11))
    assert changes["Research/completed/fresh.md"].status == "added"
    assert changes["Research/completed/fresh.md"].added_lines == ((1, 4),)
    renamed = changes["Research/completed/2026/new-name.md"]
    assert (renamed.status, renamed.old_path, renamed.added_lines) == (
        "renamed",
        "Research/completed/old-name.md",
        (),
    )
    gone = changes["Research/completed/gone.md"]
    assert gone.status == "deleted" and not gone.evaluable
    assert all(c.evaluable for p, c in changes.items() if p != "Research/completed/gone.md")


def test_rename_with_edits_keeps_the_added_lines_at_the_new_path(repo: GitRepo) -> None:
    base = repo.commit("base", {"a.md": lines(40)})
    repo.rename("a.md", "b.md")
    head = repo.commit("move and edit", {"b.md": lines(40) + "appended\n"})
    [change] = changed_files(repo.path, base, head, "*.md")
    assert (change.path, change.status, change.old_path, change.added_lines) == (
        "b.md",
        "renamed",
        "a.md",
        ((41, 41),),
    )


def test_binary_files_are_listed_but_not_evaluated(repo: GitRepo) -> None:
    base = repo.commit("base", {"doc.md": "text\n"})
    head = repo.commit("bin", {"figure.md": b"\x00\x01\x02binary\x00", "doc.md": "text\nmore\n"})
    changes = by_path(changed_files(repo.path, base, head, "*.md"))
    assert changes["figure.md"].binary and not changes["figure.md"].evaluable
    assert changes["figure.md"].added_lines == ()
    assert changes["doc.md"].added_lines == ((2, 2),) and changes["doc.md"].evaluable


def test_awkward_names_survive_exactly(repo: GitRepo) -> None:
    names = [
        "docs/with space.md",
        "docs/ünïcødé – dash.md",
        "docs/new\nline.md",
        "docs/-leading-dash.md",
        "docs/*.md",
        'docs/quote"and\\slash.md',
        "docs/tab\there.md",
    ]
    base = repo.commit("base", {"docs/keep.md": "k\n"})
    head = repo.commit("weird", dict.fromkeys(names, "first\nsecond\n"))
    changes = by_path(changed_files(repo.path, base, head, "docs/*.md"))
    assert set(changes) == set(names)
    assert all(c.status == "added" and c.added_lines == ((1, 2),) for c in changes.values())


def test_literal_star_file_name_does_not_widen_the_diff(repo: GitRepo) -> None:
    # With pathspec magic on, a file named '*.md' would pull every .md file into the patch.
    base = repo.commit("base", {"a.md": "a\n", "*.md": "star\n"})
    head = repo.commit("edit", {"a.md": "a\nb\n", "*.md": "star\nmore\n", "z.md": "z\n"})
    changes = by_path(changed_files(repo.path, base, head, "\\*.md"))
    assert set(changes) == {"*.md"} and changes["*.md"].added_lines == ((2, 2),)


def test_carriage_returns_inside_lines_do_not_shift_line_numbers(repo: GitRepo) -> None:
    base = repo.commit("base", {"crlf.md": "one\r\ntwo\r\n"})
    head = repo.commit("edit", {"crlf.md": "one\r\ntwo\r\nthree has a lone \r inside\r\nfour\r\n"})
    [change] = changed_files(repo.path, base, head, "*.md")
    assert change.added_lines == ((3, 4),)


def test_empty_tree_base_lists_every_matching_file_as_added(repo: GitRepo) -> None:
    head = repo.commit("root", {"a.md": lines(3), "b.txt": "x\n", "sub/c.md": "c\n"})
    changes = changed_files(repo.path, EMPTY_TREE, head, "**.md")
    assert [(c.path, c.status, c.added_lines) for c in changes] == [
        ("a.md", "added", ((1, 3),)),
        ("sub/c.md", "added", ((1, 1),)),
    ]
    assert files_at(repo.path, head, "**.md") == ["a.md", "sub/c.md"]


# ------------------------------------------------------------------------- ranges and merges


def test_three_dot_diffs_from_the_merge_base(repo: GitRepo) -> None:
    repo.commit("base", {"shared.md": "s\n"})
    repo.checkout("feature", new=True)
    feature = repo.commit("feature work", {"feature.md": "f\n"})
    repo.checkout("main")
    main = repo.commit("main moved on", {"main-only.md": "m\n"})

    three = [c.path for c in changed_files(repo.path, main, feature, "*.md", three_dot=True)]
    two = [c.path for c in changed_files(repo.path, main, feature, "*.md")]
    assert three == ["feature.md"]
    assert two == ["feature.md", "main-only.md"]  # two-dot also "deletes" main's new file


def test_merge_commit_range_includes_merged_branch_files(repo: GitRepo) -> None:
    before = repo.commit("base", {"a.md": "a\n"})
    repo.checkout("topic", new=True)
    repo.commit("topic", {"topic.md": "t\n"})
    repo.checkout("main")
    repo.commit("main", {"a.md": "a\nb\n"})
    after = repo.merge("topic")
    changes = by_path(changed_files(repo.path, before, after, "*.md"))
    assert set(changes) == {"a.md", "topic.md"}
    assert changes["a.md"].added_lines == ((2, 2),)


def test_unrelated_histories_are_a_clear_error(repo: GitRepo, tmp_path: Path) -> None:
    first = repo.commit("one", {"a.md": "a\n"})
    repo.run("checkout", "-q", "--orphan", "other")
    other = repo.commit("orphan", {"b.md": "b\n"})
    with pytest.raises(ChangeDetectionError, match="no common history"):
        changed_files(repo.path, first, other, "*.md", three_dot=True)


def test_missing_commit_is_a_clear_error(repo: GitRepo) -> None:
    head = repo.commit("one", {"a.md": "a\n"})
    ghost = "1234567890abcdef1234567890abcdef12345678"
    with pytest.raises(ChangeDetectionError, match=ghost):
        changed_files(repo.path, ghost, head, "*.md")
    with pytest.raises(ChangeDetectionError, match=f"missing {ghost}.*no remote"):
        ensure_history(repo.path, [ghost, head])


# ------------------------------------------------------------------------------ shallow clones


def test_shallow_clone_is_deepened_until_the_base_is_reachable(repo: GitRepo, tmp_path: Path) -> None:
    base = repo.commit("base", {DOC: lines(3)})
    for i in range(40):  # farther back than the first deepen step (32)
        repo.commit(f"noise {i}", {"noise.txt": f"{i}\n"})
    head = repo.commit("doc edit", {DOC: lines(4)})
    origin = repo.publish(tmp_path / "origin.git")
    ci = origin.clone(tmp_path / "ci", depth=1)
    assert is_shallow(ci.path)

    fetches = ensure_history(ci.path, [base, head])

    assert fetches == 2  # --deepen=32 then --deepen=64
    [change] = changed_files(ci.path, base, head, "Research/**")
    assert change.added_lines == ((4, 4),)


def test_shallow_clone_deepens_until_a_merge_base_exists(repo: GitRepo, tmp_path: Path) -> None:
    root = repo.commit("root", {"a.md": "a\n"})
    repo.checkout("feature", new=True)
    feature = repo.commit("feature", {"f.md": "f\n"})
    repo.checkout("main")
    main = repo.commit("main", {"m.md": "m\n"})
    origin = repo.publish(tmp_path / "origin.git")
    ci = origin.clone(tmp_path / "ci", depth=1, branch="feature")
    ci.run("fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main")

    ensure_history(ci.path, [main, feature], merge_base_of=(main, feature), first_deepen=1)

    assert git(ci.path, "merge-base", main, feature) == root
    assert [c.path for c in changed_files(ci.path, main, feature, "*.md", three_dot=True)] == ["f.md"]


def test_deepening_is_bounded_then_unshallows(repo: GitRepo, tmp_path: Path) -> None:
    base = repo.commit("base", {"a.md": "a\n"})
    for i in range(12):
        repo.commit(f"c{i}", {"n.txt": f"{i}\n"})
    origin = repo.publish(tmp_path / "origin.git")
    ci = origin.clone(tmp_path / "ci", depth=1)
    # Steps 1, 2 reach depth 4; the bound (3) then forces a single --unshallow.
    assert ensure_history(ci.path, [base], first_deepen=1, max_deepen=3) == 3
    assert not is_shallow(ci.path)


def test_forced_push_old_tip_is_fetched_by_sha(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("base", {"a.md": "a\n"})
    old_tip = repo.commit("to be rewritten", {"a.md": "a\nold\n"})
    origin = repo.publish(tmp_path / "origin.git")
    repo.reset_hard("HEAD~1")
    new_tip = repo.commit("rewritten", {"a.md": "a\nnew\n"})
    repo.push("main", force=True)
    ci = origin.clone(tmp_path / "ci", depth=1)

    ensure_history(ci.path, [old_tip, new_tip], merge_base_of=(old_tip, new_tip))

    [change] = changed_files(ci.path, old_tip, new_tip, "*.md", three_dot=True)
    assert change.added_lines == ((2, 2),)


def test_commit_the_remote_does_not_have_is_named_in_the_error(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("base", {"a.md": "a\n"})
    origin = repo.publish(tmp_path / "origin.git")
    ci = origin.clone(tmp_path / "ci", depth=1)
    ghost = "ab" * 20
    with pytest.raises(ChangeDetectionError, match=f"missing {ghost} after fetching from remote 'origin'"):
        ensure_history(ci.path, [ghost], max_deepen=2)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_safe_directory_lets_git_read_a_workspace_owned_by_another_uid(repo: GitRepo) -> None:
    head = repo.commit("one", {"a.md": "a\n"})
    for path in [repo.path, *repo.path.rglob("*")]:
        os.lchown(path, 4321, 4321)
    plain = subprocess.run(
        ["git", "-C", str(repo.path), "rev-parse", "HEAD"],
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull},
    )
    assert plain.returncode != 0 and b"dubious ownership" in plain.stderr
    assert git(repo.path, "rev-parse", "HEAD") == head


# ------------------------------------------------------------------------------------- globs


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("Research/completed/**/*.md", "Research/completed/a.md", True),
        ("Research/completed/**/*.md", "Research/completed/2026/01/a.md", True),
        ("Research/completed/**/*.md", "Research/completed/a.txt", False),
        ("Research/completed/**/*.md", "Research/completedX/a.md", False),
        ("Research/completed/**/*.md", "Research/draft/a.md", False),
        ("Research/completed/**/*.md", "other/Research/completed/a.md", False),
        ("*.md", "README.md", True),
        ("*.md", "docs/README.md", False),
        ("**.md", "docs/deep/README.md", True),
        ("docs/*", "docs/a.md", True),
        ("docs/*", "docs/sub/a.md", False),
        ("docs/**", "docs/sub/a.md", True),
        ("**", "anything/at/all", True),
        ("*.jsx?", "page.js", True),
        ("*.jsx?", "page.jsx", True),
        ("*.jsx?", "page.jsxx", False),
        ("ab+c.md", "abbbc.md", True),
        ("ab+c.md", "ac.md", False),
        ("[CB]at.md", "Cat.md", True),
        ("[CB]at.md", "Hat.md", False),
        ("v[0-9].md", "v7.md", True),
        ("a.md", "aXmd", False),  # '.' is literal
        ("\\*.md", "*.md", True),
        ("\\*.md", "x.md", False),
        ("docs/*.md", "docs/new\nline.md", True),
        ("docs/*.md", "docs/sub\n/x.md", False),
        ("Research/**\n!Research/drafts/**", "Research/drafts/x.md", False),
        ("Research/**\n!Research/drafts/**", "Research/done/x.md", True),
        ("Research/**\n!Research/drafts/**\nResearch/drafts/keep.md", "Research/drafts/keep.md", True),
        ("", "any/path.md", True),
        ("!**", "a.md", False),
    ],
)
def test_path_matches_follows_github_filter_patterns(pattern: str, path: str, expected: bool) -> None:
    assert path_matches(path, pattern) is expected


def test_format_changes_says_what_would_be_evaluated() -> None:
    text = format_changes(
        [
            ChangedFile("a.md", "modified", None, ((2, 3), (7, 7))),
            ChangedFile("b.md", "renamed", "old.md"),
            ChangedFile("c.md", "deleted"),
            ChangedFile("d\nx.md", "added", None, (), binary=True),
        ]
    )
    assert text.splitlines() == [
        "evaluate       modified   a.md  +[2-3,7]",
        "evaluate       renamed from 'old.md' b.md",
        "skip (deleted) deleted    c.md",
        "skip (binary)  added      'd\\nx.md'",
        "2 of 4 changed files would be evaluated",
    ]
    assert format_changes([]) == "no matching files changed"
