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
    merge_bases,
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


def test_binary_files_are_listed_and_evaluated_as_text(repo: GitRepo) -> None:
    """git would call figure.md binary (NUL bytes) and print no hunks; it is diffed as text and
    evaluated: reading it is then an error of its own, never a skip."""
    base = repo.commit("base", {"doc.md": "text\n"})
    head = repo.commit("bin", {"figure.md": b"\x00\x01\x02binary\x00\nline\n", "doc.md": "text\nmore\n"})
    changes = by_path(changed_files(repo.path, base, head, "*.md"))
    assert changes["figure.md"].evaluable and changes["figure.md"].added_lines == ((1, 2),)
    assert changes["doc.md"].added_lines == ((2, 2),) and changes["doc.md"].evaluable


@pytest.mark.parametrize(
    ("where", "line"),
    [
        (".gitattributes", "*.md -diff\n"),
        ("docs/.gitattributes", "*.md binary\n"),
        (".gitattributes", "*.md diff=secret\n"),  # a driver the repository configures below
    ],
)
def test_attributes_cannot_make_a_change_binary_or_run_a_driver(repo: GitRepo, where: str, line: str) -> None:
    marker = repo.path.parent / "driver-ran"
    repo.run("config", "diff.secret.textconv", f"touch {marker}; cat")
    repo.run("config", "diff.secret.command", f"touch {marker}; true")
    base = repo.commit("attributes", {where: line, "docs/a.md": "one\n"})
    head = repo.commit("edit", {"docs/a.md": "one\ntwo\n", "docs/b.md": "new\n"})
    changes = by_path(changed_files(repo.path, base, head, "docs/*.md"))
    assert {p: c.added_lines for p, c in changes.items()} == {"docs/a.md": ((2, 2),), "docs/b.md": ((1, 1),)}
    assert all(c.evaluable for c in changes.values())
    assert not marker.exists()


def test_the_repository_s_diff_settings_change_nothing(repo: GitRepo) -> None:
    """Prefixes, context merged between hunks, rename detection, colour and file order come from git's
    config; each is fixed on the command line, so the listing, the pairing and the ranges hold."""
    order = repo.path.parent / "order.txt"
    order.write_text("z.md\n*\n")
    settings = {
        "diff.noprefix": "true",
        "diff.mnemonicPrefix": "true",
        "diff.interHunkContext": "10",
        "diff.renames": "false",
        "color.ui": "always",
        "diff.orderFile": str(order),
        "diff.ignoreSubmodules": "all",
    }
    for key, value in settings.items():
        repo.run("config", key, value)
    base = repo.commit("base", {"a.md": lines(20), "old.md": lines(30, "stable")})
    repo.rename("old.md", "new.md")
    edited = lines(20).replace("line 3\n", "changed 3\n").replace("line 9\n", "changed 9\n")
    head = repo.commit("edit", {"a.md": edited, "z.md": "z\n"})
    changes = changed_files(repo.path, base, head, "*.md")
    assert [(c.path, c.status, c.old_path, c.added_lines) for c in changes] == [
        ("a.md", "modified", None, ((3, 3), (9, 9))),
        ("new.md", "renamed", "old.md", ()),
        ("z.md", "added", None, ((1, 1),)),
    ]


def test_awkward_names_survive_exactly(repo: GitRepo) -> None:
    names = [
        "docs/with space.md",
        "docs/ünïcødé – dash.md",
        "docs/new\nline.md",
        "docs/-leading-dash.md",
        "docs/*.md",
        'docs/quote"and\\slash.md',
        "docs/tab\there.md",
        "docs/a\n+++ b/x\n.md",  # broke the text diff's parse: names come from -z output only
        "docs/b\n@@ -1 +1,9 @@\n.md",
        "docs/trailing space.md ",
    ]
    base = repo.commit("base", {"docs/keep.md": "k\n"})
    head = repo.commit("weird", dict.fromkeys(names, "first\nsecond\n"))
    changes = by_path(changed_files(repo.path, base, head, "docs/**"))
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


def test_three_dot_takes_the_union_over_every_merge_base(repo: GitRepo) -> None:
    """A criss-cross: main fixed item.md and merged a side branch; the feature merges the fix into
    the side branch keeping the old text. git names the side commit as the merge base, from which
    item.md is no change; from the other merge base it is."""
    first = repo.commit("old item", {"item.md": "old\n"})
    fixed = repo.commit("fix it", {"item.md": "fixed\n"})
    repo.checkout("side", new=True, start=first)
    side = repo.commit("side work", {"notes.txt": "n\n"})
    repo.checkout("main")
    main = repo.merge("side")
    repo.checkout("feature", new=True, start=side)
    repo.run("merge", "-q", "--no-ff", "--no-commit", fixed)
    head = repo.commit("merge the fix, keep the old item", {"item.md": "old\n"})

    assert repo.run("merge-base", main, head) == side
    assert sorted(merge_bases(repo.path, main, head)) == sorted([side, fixed])
    changes = changed_files(repo.path, main, head, "*.md", three_dot=True)
    assert [(c.path, c.status, c.added_lines) for c in changes] == [("item.md", "modified", ((1, 1),))]


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


def forked_clone(repo: GitRepo, tmp_path: Path) -> tuple[GitRepo, str, str]:
    """`feature` and `main` forked from the repository's last commit; a depth-1 clone of each."""
    repo.checkout("feature", new=True)
    feature = repo.commit("feature", {"f.md": "f\n"})
    repo.checkout("main")
    main = repo.commit("main", {"m.md": "m\n"})
    origin = repo.publish(tmp_path / "origin.git")
    ci = origin.clone(tmp_path / "ci", depth=1, branch="feature")
    ci.run("fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main")
    return ci, main, feature


def test_shallow_clone_deepens_until_a_merge_base_exists(repo: GitRepo, tmp_path: Path) -> None:
    root = repo.commit("root", {"a.md": "a\n"})
    ci, main, feature = forked_clone(repo, tmp_path)

    ensure_history(ci.path, [main, feature], merge_base_of=(main, feature), first_deepen=1)

    assert git(ci.path, "merge-base", main, feature) == root
    assert [c.path for c in changed_files(ci.path, main, feature, "*.md", three_dot=True)] == ["f.md"]


def test_a_shallow_clone_of_forked_revisions_is_unshallowed(repo: GitRepo, tmp_path: Path) -> None:
    """Once one merge base shows, another (a criss-cross has several) may still lie beyond the
    shallow boundary: forked revisions need the whole history."""
    for i in range(40):  # history beyond the first deepening step, which finds the merge base
        repo.commit(f"old {i}", {"n.txt": f"{i}\n"})
    ci, main, feature = forked_clone(repo, tmp_path)

    ensure_history(ci.path, [main, feature], merge_base_of=(main, feature))

    assert not is_shallow(ci.path)


def test_a_shallow_clone_stays_shallow_when_the_base_is_an_ancestor(repo: GitRepo, tmp_path: Path) -> None:
    """The merge base of a commit and one it contains is that commit: nothing can hide, no full fetch."""
    for i in range(40):  # history beyond the first deepening step, which must stay unfetched
        repo.commit(f"old {i}", {"n.txt": f"{i}\n"})
    base = repo.commit("base", {"a.md": "a\n"})
    head = repo.commit("head", {"a.md": "a\nb\n"})
    repo.commit("later", {"a.md": "a\nb\nc\n"})
    origin = repo.publish(tmp_path / "origin.git")
    ci = origin.clone(tmp_path / "ci", depth=1)
    ensure_history(ci.path, [base, head], merge_base_of=(base, head))
    assert is_shallow(ci.path)
    assert [c.path for c in changed_files(ci.path, base, head, "*.md", three_dot=True)] == ["a.md"]


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


# ------------------------------------------------------------------------------------ output


def test_format_changes_says_what_would_be_evaluated() -> None:
    text = format_changes(
        [
            ChangedFile("a.md", "modified", None, ((2, 3), (7, 7))),
            ChangedFile("b.md", "renamed", "old.md"),
            ChangedFile("c.md", "deleted"),
            ChangedFile("d\nx.md", "added", None, ()),
        ]
    )
    assert text.splitlines() == [
        "evaluate       modified   a.md  +[2-3,7]",
        "evaluate       renamed from 'old.md' b.md",
        "skip (deleted) deleted    c.md",
        "evaluate       added      'd\\nx.md'",
        "3 of 4 changed files would be evaluated",
    ]
    assert format_changes([]) == "no matching files changed"
