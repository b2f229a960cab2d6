"""Targets: files, directories, globs; problems per target; symlinks out of the root refused."""

from __future__ import annotations

import os

import pytest

from evalgate.discover import discover, display_path, in_shard


def write(p, text="# x\n"):
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_directory_recursion_glob_and_file(tmp_path):
    write(tmp_path / "a.md")
    write(tmp_path / "sub" / "b.md")
    write(tmp_path / "sub" / "c.txt")
    write(tmp_path / ".hidden" / "d.md")
    files, problems = discover(["."], tmp_path, base=tmp_path)
    assert [f.display for f in files] == ["a.md", "sub/b.md"]
    assert problems == []
    files, _ = discover(["**/*.md", "a.md"], tmp_path, base=tmp_path)
    assert sorted(f.display for f in files) == ["a.md", "sub/b.md"]  # no duplicates


def test_problems_are_per_target(tmp_path):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "ok.md")
    files, problems = discover(["missing.md", "empty", "nomatch/*.md", "ok.md"], tmp_path, base=tmp_path)
    assert [f.display for f in files] == ["ok.md"]
    messages = {p.display: p.message for p in problems}
    assert messages["missing.md"] == "no such file or directory"
    assert "no markdown" in messages["empty"]
    assert "matched no files" in messages["nomatch/*.md"]


def test_symlink_leading_outside_root_is_refused(tmp_path):
    root = tmp_path / "repo"
    outside = write(tmp_path / "secret.md", "# secret\n")
    write(root / "inside.md")
    os.symlink(outside, root / "link.md")
    os.symlink(root / "inside.md", root / "ok-link.md")
    files, problems = discover(["."], root, base=root)
    assert sorted(f.display for f in files) == ["inside.md", "ok-link.md"]
    assert [p.display for p in problems] == ["link.md"]
    assert "outside the repository root" in problems[0].message


def test_shards_partition_stably():
    names = [f"Research/completed/item-{i}.md" for i in range(200)]
    shards = [[n for n in names if in_shard(n, f"{i}/3")] for i in (1, 2, 3)]
    assert sorted(n for shard in shards for n in shard) == sorted(names)
    assert all(shards)
    assert shards == [[n for n in names if in_shard(n, f"{i}/3")] for i in (1, 2, 3)]


def test_a_symlinked_directory_is_judged_by_where_it_leads(tmp_path):
    """A directory target that is a symlink is refused when it leads out of the root, and its files
    are evaluated when it stays inside; the walk below it never enters a symlinked subdirectory."""
    root = tmp_path / "repo"
    write(root / "docs" / "a.md")
    write(tmp_path / "elsewhere" / "b.md")
    os.symlink(root / "docs", root / "alias")
    os.symlink(tmp_path / "elsewhere", root / "out")
    os.symlink(tmp_path / "elsewhere", root / "docs" / "nested-out")
    files, problems = discover(["alias", "out"], root, base=root)
    assert [f.display for f in files] == ["alias/a.md"]
    assert [(p.display, "outside the repository root" in p.message) for p in problems] == [("out", True)]


@pytest.mark.parametrize(
    ("base", "target"),
    [
        ("repo", "."),  # the directory is the base
        ("repo", "docs"),  # below the base
        ("repo", "docs/../docs/deep/"),  # spelled with .. and a trailing slash
        ("repo/docs", ".."),  # the base lies inside the directory: each file on its own
        ("repo/docs/deep", "../../other"),  # beside the base
        ("elsewhere", "../repo/docs"),  # outside the base altogether
    ],
)
def test_a_walked_directory_shows_each_file_as_display_path_does(tmp_path, base, target):
    """Files of a walked directory are shown from the directory's own display path (worked out
    once); every one must read as display_path shows that file by itself, links included."""
    for name in ("repo/a.md", "repo/docs/b.md", "repo/docs/deep/c.md", "repo/docs/deep/e f.md"):
        write(tmp_path / name)
    write(tmp_path / "repo" / "other" / "d.md")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "repo" / "a.md", tmp_path / "repo" / "docs" / "link.md")
    base_dir = tmp_path / base
    files, problems = discover([target], tmp_path / "repo", base=base_dir)
    assert problems == [] and files
    assert [f.display for f in files] == [display_path(f.path, base_dir) for f in files]


def _git_says(start) -> str:
    import subprocess

    out = subprocess.run(
        ["git", "-C", str(start), "rev-parse", "--show-toplevel"], capture_output=True, text=True
    )
    return str(type(start)(out.stdout.strip()).resolve()) if out.returncode == 0 else str(start.resolve())


def test_repository_root_is_where_git_finds_the_top_level(tmp_path, monkeypatch):
    """Found without starting git (a tenth of a one-file check), and the same directory git names: in
    a repository and below it, in a linked worktree and a submodule (whose `.git` is a file), in a
    repository nested in another, through a symlink, and outside any repository."""
    from evalgate.discover import repository_root
    from tests.support.gitrepo import GitRepo

    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"):
        monkeypatch.delenv(name, raising=False)
    outer = GitRepo.init(tmp_path / "outer")
    outer.commit("first", {"Research/completed/a.md": "# a\n", "docs/x.md": "# x\n"})
    outer.run("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "side")
    GitRepo.init(tmp_path / "outer" / "vendor" / "inner").commit("inner", {"b.md": "# b\n"})
    library = GitRepo.init(tmp_path / "library")
    library.commit("lib", {"c.md": "# c\n"})
    outer.run("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(tmp_path / "library"), "sub")
    (tmp_path / "plain" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "outer" / "Research")
    (tmp_path / "fake" / ".git").mkdir(parents=True)  # not a repository: no HEAD
    (tmp_path / "fake" / "deep").mkdir()
    starts = [
        tmp_path / "outer",
        tmp_path / "outer" / "Research" / "completed",
        tmp_path / "linked" / "docs",
        tmp_path / "outer" / "vendor" / "inner",
        tmp_path / "outer" / "vendor",
        tmp_path / "outer" / "sub",
        tmp_path / "plain" / "deep",
        tmp_path / "link",
        tmp_path / "fake" / "deep",
    ]
    found = {str(s.relative_to(tmp_path)): str(repository_root(s)) for s in starts}
    assert found == {str(s.relative_to(tmp_path)): _git_says(s) for s in starts}
    assert found["link"] == str((tmp_path / "outer").resolve())
    assert found["outer/sub"] == str((tmp_path / "outer" / "sub").resolve())
    assert found["plain/deep"] == str((tmp_path / "plain" / "deep").resolve())
    assert found["fake/deep"] == str((tmp_path / "fake" / "deep").resolve())


def test_repository_root_asks_git_when_the_environment_redirects_it(tmp_path, monkeypatch):
    from evalgate.discover import repository_root
    from tests.support.gitrepo import GitRepo

    repo = GitRepo.init(tmp_path / "repo")
    repo.commit("first", {"a.md": "# a\n"})
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "repo" / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path / "repo"))
    assert repository_root(tmp_path / "elsewhere") == (tmp_path / "repo").resolve()


def test_markdown_extensions_are_matched_in_any_case_by_the_walk_and_the_glob(tmp_path):
    """`x.MD` was evaluated by the directory walk and missed by the glob (and by the action's
    `paths`); `.markdown` by both. Both extensions now count, in any letter case, everywhere."""
    names = ["a.md", "b.MD", "c.Md", "d.markdown", "e.MARKDOWN"]
    for name in [*names, "f.txt", "g.mdx", "h.md.bak", "i.mar\u212adown"]:  # the Kelvin sign is no k
        write(tmp_path / "docs" / name)
    walked, problems = discover(["docs"], tmp_path, base=tmp_path)
    assert problems == [] and [f.display for f in walked] == [f"docs/{n}" for n in names]
    for glob in ("docs/*.md", "docs/**/*.md", "**/*.MD", "docs/*.markdown"):
        globbed, problems = discover([glob], tmp_path, base=tmp_path)
        assert problems == [] and sorted(f.display for f in globbed) == [f"docs/{n}" for n in names], glob
    other, _ = discover(["docs/*.txt"], tmp_path, base=tmp_path)
    assert [f.display for f in other] == ["docs/f.txt"]  # other extensions are matched as written
