"""selection.py on real git repositories: what a range's changes select, what is refused, and every
other change under the root of `paths`, named with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate.github import selection
from evalgate.github.changes import diff_entries
from evalgate.github.selection import Selection, select_all, select_changes
from tests.support.gitrepo import GitRepo

PATHS = "Research/completed/**/*.md"
ITEM = "Research/completed/item.md"


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo.init(tmp_path / "ws")


def selected(repo: GitRepo, base: str, pattern: str = PATHS) -> Selection:
    head = repo.head()
    return select_changes(repo.path, head, diff_entries(repo.path, base, head), pattern)


def test_changes_outside_the_root_are_not_named_and_inside_it_every_one_is(repo: GitRepo) -> None:
    base = repo.commit("base", {ITEM: "# i\n", "Research/completed/gone.md": "# g\n", "moved.md": "# m\n"})
    repo.rename("Research/completed/gone.md", "Research/archive/gone.md")
    repo.commit(
        "change",
        {
            "src/app.py": "print()\n",  # outside the root: not a document anyone meant
            "Research/drafts/d.md": "# d\n",
            "Research/completed/figure.png": b"\x89PNG\x00",
            "Research/completed/drafts/wip.md": "# w\n",
            ITEM: None,
        },
    )
    found = selected(repo, base, f"{PATHS}\n!Research/completed/drafts/**")
    assert found.paths == () and found.rejected == ()
    assert dict(found.not_evaluated) == {
        ITEM: "deleted",
        "Research/completed/gone.md": (
            "renamed to 'Research/archive/gone.md', not matched by paths glob "
            "'Research/completed/**/*.md' or '!Research/completed/drafts/**'"
        ),
        "Research/completed/figure.png": (
            "not matched by paths glob 'Research/completed/**/*.md' or '!Research/completed/drafts/**': "
            "not markdown"
        ),
        "Research/completed/drafts/wip.md": "excluded by paths line '!Research/completed/drafts/**'",
    }


def test_a_glob_over_the_whole_repository_names_only_markdown_files(repo: GitRepo) -> None:
    base = repo.commit("base", {"README.md": "# r\n"})
    repo.commit("change", {"src/app.py": "x\n", "docs/guide.MD ": "# g\n", "docs/a.md": "# a\n"})
    found = selected(repo, base, "**/*.md")
    assert found.paths == ("docs/a.md",)
    assert dict(found.not_evaluated) == {
        "docs/guide.MD ": "not matched by paths glob '**/*.md': the name 'guide.MD ' ends with a space"
    }


def test_links_are_followed_through_links_once_each_and_loops_end(repo: GitRepo) -> None:
    repo.symlink("Research/completed/via", "../drafts")
    repo.symlink("Research/drafts/deeper", "../notes")
    repo.symlink("Research/drafts/loop", ".")  # Research/completed/via/loop/loop/... ends
    base = repo.commit("links", {"Research/drafts/a.md": "# a\n", "Research/notes/b.md": "# b\n"})
    repo.commit("edit behind the links", {"Research/notes/b.md": "# b\nmore\n"})
    found = selected(repo, base)
    assert found.paths == ("Research/completed/via/deeper/b.md",)  # changed; a.md did not
    assert found.rejected == () and found.not_evaluated == ()
    # every file once through each link: `deeper` was followed already when `loop` leads to it again
    everything = select_all(repo.path, repo.head(), PATHS)
    assert sorted(everything.paths) == [
        "Research/completed/via/a.md",
        "Research/completed/via/deeper/b.md",
        "Research/completed/via/loop/a.md",
    ]


def test_a_link_above_the_root_is_followed(repo: GitRepo) -> None:
    """`Research` itself a link: the CLI's glob reads Research/completed/ through it."""
    base = repo.commit("base", {"Archive/completed/old.md": "# o\n"})
    repo.symlink("Research", "Archive")
    repo.commit("alias the archive", {})
    found = selected(repo, base)
    assert found.paths == ("Research/completed/old.md",)


def test_links_out_of_the_workspace_or_into_git_are_refused_when_they_change(
    repo: GitRepo, tmp_path: Path
) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.md").write_text("# secret\n")
    repo.symlink("Research/completed/old-out", str(tmp_path / "outside"))
    base = repo.commit("an old link", {ITEM: "# i\n"})
    repo.symlink("Research/completed/out", str(tmp_path / "outside"))
    repo.symlink("Research/completed/git", "../../.git")
    repo.commit("new links", {})
    found = selected(repo, base)
    assert found.paths == ()
    assert dict(found.rejected) == {
        "Research/completed/out": "is a symlink to a directory outside the workspace or in .git",
        "Research/completed/git": "is a symlink to a directory outside the workspace or in .git",
    }
    assert found.not_evaluated == ()


def test_a_link_to_a_directory_without_documents_is_named(repo: GitRepo) -> None:
    base = repo.commit("base", {"assets/logo.svg": "<svg/>\n"})
    repo.symlink("Research/completed/assets", "../../assets")
    repo.commit("link", {})
    found = selected(repo, base)
    assert found.paths == () and found.rejected == ()
    assert dict(found.not_evaluated) == {
        "Research/completed/assets": (
            "a symlink to a directory that holds no file matched by paths glob 'Research/completed/**/*.md'"
        )
    }


def test_a_file_symlink_must_still_lead_to_a_matching_path(repo: GitRepo) -> None:
    base = repo.commit("base", {"notes/secret.md": "# s\n"})
    repo.symlink("Research/completed/leak.md", "../../notes/secret.md")
    repo.commit("link a file", {})
    found = selected(repo, base)
    assert found.paths == ()
    assert found.rejected == (
        (
            "Research/completed/leak.md",
            f"is a symlink to 'notes/secret.md', which does not match paths {PATHS!r}",
        ),
    )


def test_files_reached_through_links_are_capped(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(selection, "MAX_LINKED_FILES", 3)
    base = repo.commit("docs", {f"docs/{i}.md": f"# {i}\n" for i in range(5)})
    repo.symlink("Research/completed/all", "../../docs")
    repo.commit("link", {})
    found = selected(repo, base)
    assert len(found.paths) == 3
    assert found.rejected == (("Research/completed/all", "leads to more than 3 files through symlinks"),)
