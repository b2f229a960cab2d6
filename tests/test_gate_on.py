"""`gate-on: new` on the command line (`evalgate check --gate-on new --base REV`), on real git
repositories: each changed document against its version at the base commit, in one run with one
policy. A typo fix on an old failing item passes; a change that adds one acronym finding fails on
that finding alone; a line shift makes nothing new; a judged score that drops fails; a new document
is judged on every finding."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from evalgate.gate.compare import fingerprint, marked
from evalgate.results import Finding
from tests.checks.research_item import FINDINGS, ROWS, line_of, research_item
from tests.support.cli import run_in
from tests.support.gitrepo import GitRepo

ITEM = "Research/completed/2026-11-01-old-item.md"
OTHER = "Research/completed/2026-11-02-other-item.md"
# An old item the gate fails today: three acronyms never expanded (a hard fail on acronym_expansion).
OLD_CONTEXT = "Policy drift between stages causes silent enforcement gaps."
FAILING_CONTEXT = "Policy drift between CI stages causes silent RBAC gaps and SLA breaches teh audit misses."
OLD_ITEM = research_item().replace(OLD_CONTEXT, FAILING_CONTEXT)
TYPO_FIXED = OLD_ITEM.replace("teh audit", "the audit")


def _repo(tmp_path: Path, files: dict[str, str]) -> tuple[GitRepo, str]:
    repo = GitRepo.init(tmp_path / "repo")
    return repo, repo.commit("base", files)


def _check(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = run_in(repo.path, ["check", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def _text(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run_in(repo.path, ["check", *args])
    return code, capsys.readouterr().out


def _findings(result: dict[str, Any], dimension: str) -> list[dict[str, Any]]:
    (dim,) = [d for d in result["dimensions"] if d["id"] == dimension]
    return list(dim["findings"])


def test_a_typo_fix_on_an_old_failing_item_passes_under_new_and_fails_under_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base = _repo(tmp_path, {ITEM: OLD_ITEM})
    # the typo is on the very line that holds both acronym findings
    repo.commit("typo", {ITEM: TYPO_FIXED})

    code, report = _check(repo, capsys, ITEM, "--gate-on", "new", "--base", base)
    (result,) = report["results"]
    assert code == 0 and result["verdict"] == "PASS"
    assert result["gate_on"]["new_findings"] == 0 and result["gate_on"]["existing_findings"] == 3
    assert [f["existed"] for f in _findings(result, "acronym_expansion")] == [True, True, True]
    assert [c["rule"] for c in result["gate_on"]["existed_rules"]] == ["hard_fail"]
    assert report["summary"]["gate_on"] == {
        "mode": "new",
        "why": "--gate-on new",
        "base": base,
        "new_findings": 0,
        "existing_findings": 3,
    }

    code, report = _check(repo, capsys, ITEM, "--gate-on", "all")
    assert code == 1 and report["results"][0]["verdict"] == "FAIL"
    assert report["summary"]["gate_on"] == {"mode": "all", "why": "--gate-on all"}
    assert "gate_on" not in report["results"][0]


def test_one_new_acronym_finding_on_an_old_item_fails_naming_only_that_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base = _repo(tmp_path, {ITEM: OLD_ITEM})
    added = "Promotion gates must also cover SBOM files."
    changed = OLD_ITEM.replace(FAILING_CONTEXT, FAILING_CONTEXT + " " + added)
    repo.commit("add a sentence", {ITEM: changed})

    code, report = _check(repo, capsys, ITEM, "--gate-on", "new", "--base", base)
    (result,) = report["results"]
    assert code == 1 and result["verdict"] == "FAIL"
    new = [f for f in _findings(result, "acronym_expansion") if not f.get("existed")]
    assert [f["message"].split(" ")[0] for f in new] == ["SBOM"]
    assert new[0]["line"] == line_of(changed, added) and new[0]["rule"] == "unexpanded"
    assert result["gate_on"]["new_findings"] == 1 and result["gate_on"]["existing_findings"] == 3
    (reason,) = result["reasons"]
    assert reason.startswith("hard fail: acronym_expansion scored") and reason.endswith("1 new finding")

    code, text = _text(repo, capsys, ITEM, "--gate-on", "new", "--base", base)
    listed = [line for line in text.splitlines() if f"{ITEM}:" in line]
    assert len(listed) == 1 and "SBOM used without expansion" in listed[0]
    assert "and 3 finding(s) that existed before this change" in text
    assert "gate-on new: 1 new finding, 3 existed before this change" in text


def test_a_line_shift_makes_no_finding_new(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # findings of several kinds, including a message that names a line ("expanded only at line N")
    late = OLD_ITEM.replace(
        "Digests beat tags", "Digests beat tags, as Open Container Initiative (OCI) registries show"
    )
    late = late.replace("## Scope", "OCI images carry digests.\n\n## Scope")
    short = [*FINDINGS[:5], "Too short to count here."]
    base_text = research_item(findings=short).replace(OLD_CONTEXT, FAILING_CONTEXT)
    files = {ITEM: late, OTHER: base_text}
    repo, base = _repo(tmp_path, files)
    shifted = {
        path: text.replace("## Scope", "A new opening paragraph.\n\nAnd another.\n\n## Scope")
        for path, text in files.items()
    }
    repo.commit("shift", shifted)

    code, report = _check(repo, capsys, ITEM, OTHER, "--gate-on", "new", "--base", base)
    assert code == 0, report
    for result in report["results"]:
        assert result["gate_on"]["new_findings"] == 0 and result["gate_on"]["existing_findings"] >= 2
        assert result["verdict"] == "PASS"
    messages = [f["message"] for r in report["results"] for d in r["dimensions"] for f in d["findings"]]
    assert any("expanded only at line" in m for m in messages)  # a line number that moved
    assert any(m.startswith("Key Finding 6 has") for m in messages)


def test_a_key_finding_inserted_above_renumbers_old_findings_without_making_them_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = "Too short to count here."
    # the sixth finding is short and has no Evidence Map row: a hard fail on evidence_map_coverage
    base_text = research_item(findings=[*FINDINGS[:5], short], rows=ROWS[:5])
    repo, base = _repo(tmp_path, {ITEM: base_text})
    first = "Deployment pipelines that pin every stage to one digest let operators roll back " + (
        "to a known policy in minutes rather than rebuilding it from source control history."
    )
    row = "[fact] Pinned digests let operators roll back to a known policy quickly."
    repo.commit(
        "a finding first",
        {ITEM: research_item(findings=[first, *FINDINGS[:5], short], rows=[row, *ROWS[:5]])},
    )

    code, report = _check(repo, capsys, ITEM, "--gate-on", "new", "--base", base)
    (result,) = report["results"]
    messages = [f["message"] for d in result["dimensions"] for f in d["findings"] if f.get("existed")]
    assert any(m.startswith("Key Finding 7 has no matching Evidence Map row") for m in messages)
    assert any(m.startswith("Key Finding 7 has 5 words") for m in messages)
    assert result["gate_on"]["new_findings"] == 0 and result["verdict"] == "PASS" and code == 0


def test_a_new_document_has_every_finding_new(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, base = _repo(tmp_path, {OTHER: research_item()})
    repo.commit("add an item", {ITEM: OLD_ITEM})

    code, report = _check(repo, capsys, ITEM, OTHER, "--gate-on", "new", "--base", base)
    by_path = {r["path"]: r for r in report["results"]}
    assert code == 1 and by_path[ITEM]["verdict"] == "FAIL"
    against = by_path[ITEM]["gate_on"]
    assert against["base_path"] is None and against["new_findings"] == 3 and against["existing_findings"] == 0
    assert "new in this change" in against["note"]
    assert not any(f.get("existed") for f in _findings(by_path[ITEM], "acronym_expansion"))
    assert by_path[OTHER]["verdict"] == "PASS" and by_path[OTHER]["gate_on"]["base_path"] == OTHER


def test_a_rename_compares_with_the_old_path_and_a_move_into_the_glob_with_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = "Research/drafts/2026-11-03-draft.md"
    repo, base = _repo(tmp_path, {ITEM: OLD_ITEM, draft: OLD_ITEM.replace("Policy digest", "Draft digest")})
    renamed, promoted = "Research/completed/2026-11-01-renamed.md", "Research/completed/2026-11-03-draft.md"
    repo.rename(ITEM, renamed)
    repo.rename(draft, promoted)
    repo.commit("rename and promote")

    code, report = _check(repo, capsys, renamed, promoted, "--gate-on", "new", "--base", base)
    by_path = {r["path"]: r for r in report["results"]}
    assert by_path[renamed]["verdict"] == "PASS" and by_path[renamed]["gate_on"]["base_path"] == ITEM
    assert by_path[promoted]["verdict"] == "FAIL" and by_path[promoted]["gate_on"]["base_path"] is None
    assert "renamed into the paths glob" in by_path[promoted]["gate_on"]["note"]
    assert code == 1


def test_a_document_reached_through_a_symlink_is_compared_with_the_base_version_the_link_leads_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo.init(tmp_path / "repo")
    repo.write({"Research/drafts/d.md": OLD_ITEM})
    repo.symlink("Research/completed/linked", "../drafts")  # a linked directory
    repo.symlink("Research/completed/alias.md", "../drafts/d.md")  # a linked file
    base = repo.commit("base")
    repo.commit("typo", {"Research/drafts/d.md": TYPO_FIXED})

    targets = ["Research/completed/linked/d.md", "Research/completed/alias.md"]
    code, report = _check(repo, capsys, *targets, "--gate-on", "new", "--base", base)
    assert [r["gate_on"]["base_path"] for r in report["results"]] == targets
    assert [(r["verdict"], r["gate_on"]["existing_findings"]) for r in report["results"]] == [("PASS", 3)] * 2
    assert code == 0


def test_a_link_the_change_points_elsewhere_has_no_base_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The base's link led to one draft; the change points it at another, as bad: the document now
    read through it is not the one the base had there, so every finding is new."""
    repo = GitRepo.init(tmp_path / "repo")
    repo.write({"Research/drafts/d.md": OLD_ITEM, "Research/other/d.md": OLD_ITEM})
    repo.symlink("Research/completed/linked", "../drafts")
    base = repo.commit("base")
    repo.symlink("Research/completed/linked", "../other")
    repo.commit("point the link elsewhere", {"Research/other/d.md": TYPO_FIXED})

    code, report = _check(repo, capsys, "Research/completed/linked/d.md", "--gate-on", "new", "--base", base)
    (result,) = report["results"]
    assert code == 1 and result["verdict"] == "FAIL" and result["gate_on"]["new_findings"] == 3
    assert "leads to 'Research/drafts/d.md' at the base commit" in result["gate_on"]["note"]


def test_a_second_copy_of_an_old_finding_is_new_and_is_the_copy_the_change_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = "| Claim | Source | Confidence | Notes |\n|---|---|---|---|\n"
    weak = "| [fact] Weather data was not consulted. | no link given | low | note |"
    text = research_item().replace(header, header + weak + "\n")
    repo, base = _repo(tmp_path, {ITEM: text})
    another = "| [fact] Lunar cycles were not consulted. | no link given | low | note |"
    changed = text.replace(header + weak, header + another + "\n" + weak)  # above the old one
    repo.commit("another weak row", {ITEM: changed})

    code, report = _check(repo, capsys, ITEM, "--gate-on", "new", "--base", base)
    (result,) = report["results"]
    rows = _findings(result, "evidence_map_coverage")
    assert [(f["line"], bool(f.get("existed"))) for f in rows] == [
        (line_of(changed, another), False),
        (line_of(changed, weak), True),
    ]
    # two unsourced rows score 4: the new finding is reported, the file still passes, as under all
    assert result["verdict"] == "PASS" and result["gate_on"]["new_findings"] == 1 and code == 0


JUDGE = """\
import sys
prompt = sys.stdin.read()
summary = 2 if "SCORE-DROP" in prompt else 4
print("| dimension | score | evidence | reasoning |")
print("| --- | --- | --- | --- |")
print(f'| executive_summary_first_sentence | {summary} | "Digest equality is the only" | scripted |')
print('| claim_source_accuracy | 4 | "Digests beat tags" | scripted |')
print('| epistemic_labeling | 2 | "Digests beat tags" | always low: it fails before and after |')
print('| key_finding_specificity | 4 | "Digests beat tags" | scripted |')
print()
print("OVERALL: FAIL")
"""


def _judge(tmp_path: Path, log: Path) -> str:
    script = tmp_path / "judge.py"
    script.write_text(
        JUDGE.replace(
            "prompt = sys.stdin.read()",
            f"prompt = sys.stdin.read()\nopen({str(log)!r}, 'a').write('call\\n')",
        )
    )
    return f"command:{sys.executable} {script}"


def test_a_judged_dimension_fails_only_when_its_score_drops_against_the_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = research_item()
    repo, base = _repo(tmp_path, {ITEM: text, OTHER: text.replace("Policy digest", "Other digest")})
    repo.commit(
        "edit both",
        {
            ITEM: text.replace("It is cheap.", "It is cheap. SCORE-DROP"),
            OTHER: text.replace("Policy digest", "Other digest").replace("It is cheap.", "It is cheap, too."),
        },
    )
    log = tmp_path / "calls.log"
    judge = _judge(tmp_path, log)
    cache = ["--cache-dir", str(tmp_path / "cache")]

    code, report = _check(
        repo, capsys, ITEM, OTHER, "--judge", judge, *cache, "--gate-on", "new", "--base", base
    )
    by_path = {r["path"]: r for r in report["results"]}
    dropped, same = by_path[ITEM], by_path[OTHER]
    assert code == 1 and dropped["verdict"] == "FAIL" and same["verdict"] == "PASS"
    assert dropped["decision"]["failing"] == ["executive_summary_first_sentence"]
    assert any(r.endswith("4 at the base commit") for r in dropped["reasons"])
    # epistemic_labeling scores 2 in both versions: below the floor, but no worse than before
    assert "epistemic_labeling" in [c.get("dimension") for c in same["gate_on"]["existed_rules"]]
    assert same["gate_on"]["base_scores"]["epistemic_labeling"] == 2
    assert len(log.read_text().splitlines()) == 4  # both versions of both documents, judged in this run
    assert report["summary"]["judge_calls"] == 4

    code, report = _check(repo, capsys, ITEM, OTHER, "--judge", judge, *cache, "--gate-on", "all")
    assert code == 1 and {r["verdict"] for r in report["results"]} == {"FAIL"}


def test_a_base_version_judged_before_is_answered_by_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = research_item()
    repo, base = _repo(tmp_path, {ITEM: text})
    log = tmp_path / "calls.log"
    judge = _judge(tmp_path, log)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    _check(repo, capsys, ITEM, "--judge", judge, *cache)  # the base, judged when it was the head
    assert len(log.read_text().splitlines()) == 1
    repo.commit("drop", {ITEM: text.replace("It is cheap.", "It is cheap. SCORE-DROP")})

    code, report = _check(repo, capsys, ITEM, "--judge", judge, *cache, "--gate-on", "new", "--base", base)
    assert (
        code == 1 and report["results"][0]["gate_on"]["base_scores"]["executive_summary_first_sentence"] == 4
    )
    assert len(log.read_text().splitlines()) == 2  # only the head was asked
    assert [j["cached"] for j in report["results"][0]["gate_on"]["base_judges"]] == [True]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gate-on", "new"], "give --base REV"),
        (["--base", "HEAD"], "add --gate-on new"),
        (["--gate-on", "new", "--base", "no-such-rev"], "--base no-such-rev"),
    ],
)
def test_the_command_line_says_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    repo, _ = _repo(tmp_path, {ITEM: OLD_ITEM})
    assert run_in(repo.path, ["check", ITEM, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_gate_on_new_in_the_configuration_without_a_base_says_every_finding_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = _repo(tmp_path, {ITEM: OLD_ITEM, ".evalgate.yml": "gate-on: new\n"})
    code, report = _check(repo, capsys, ITEM)
    assert code == 1 and report["summary"]["gate_on"]["mode"] == "all"
    assert "needs --base" in report["summary"]["gate_on"]["why"]


# ---------------------------------------------------------------------------------- fingerprints


def test_a_fingerprint_leaves_out_line_numbers_and_white_space_but_keeps_the_words() -> None:
    a = Finding(24, 'LLM used before its expansion (expanded only at line 68);  write "x"', rule="late")
    b = Finding(30, 'LLM used before its expansion (expanded only at line 74); write "x"', rule="late")
    c = Finding(30, 'GPU used before its expansion (expanded only at line 74); write "x"', rule="late")
    assert fingerprint("acronym_expansion", a) == fingerprint("acronym_expansion", b)
    assert fingerprint("acronym_expansion", a) != fingerprint("acronym_expansion", c)
    assert fingerprint("acronym_expansion", a) != fingerprint("other", b)
    assert fingerprint("d", replace_rule(a, "unexpanded")) != fingerprint("d", a)
    counted = Finding(
        5, "Key Finding 3 has 12 words in its claim; 20 are required", rule="short_claim", key=""
    )
    assert fingerprint("k", counted) == fingerprint(
        "k", Finding(9, "Key Finding 4 has 9 words", rule="short_claim", key="")
    )


def replace_rule(finding: Finding, rule: str) -> Finding:
    from dataclasses import replace

    return replace(finding, rule=rule)


def test_findings_are_matched_as_a_multiset_and_the_unmatched_copy_is_new() -> None:
    old = Finding(10, "row without a source", rule="weak_row", anchor="a")
    head = (
        Finding(11, "row without a source", rule="weak_row", anchor="b"),  # the row the change added
        Finding(12, "row without a source", rule="weak_row", anchor="a"),  # the old row, moved down
    )
    assert [f.existed for f in marked("evidence_map_coverage", head, (old,))] == [False, True]
    assert [f.existed for f in marked("evidence_map_coverage", head, (old, old))] == [True, True]
    assert [f.existed for f in marked("evidence_map_coverage", head, ())] == [False, False]


def test_a_line_shift_makes_no_finding_new_on_any_corpus_item(
    tmp_path: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every item of the real corpus, shifted by three lines above its first `##` heading: no finding
    is new and no file fails, whatever the messages say about other lines."""
    items = sorted(corpus_dir.glob("*.md"))
    repo = GitRepo.init(tmp_path / "repo")
    originals = {f"Research/completed/{p.name}": p.read_bytes() for p in items}
    base = repo.commit("corpus", originals)  # type: ignore[arg-type]
    shifted = {}
    for path, data in originals.items():
        lines = data.split(b"\n")
        first = next((i for i, line in enumerate(lines) if line.startswith(b"## ")), 0)
        shifted[path] = b"\n".join([*lines[:first], b"", b"", b"", *lines[first:]])
    repo.commit("shift", shifted)  # type: ignore[arg-type]

    code, report = _check(repo, capsys, "Research/completed/", "--gate-on", "new", "--base", base)
    assert len(report["results"]) == len(items) > 400
    new = {r["path"]: r["gate_on"]["new_findings"] for r in report["results"] if r["gate_on"]["new_findings"]}
    assert new == {}
    assert {r["verdict"] for r in report["results"]} == {"PASS"} and code == 0
    assert report["summary"]["gate_on"]["existing_findings"] > 1000


def test_an_unchanged_base_version_is_neither_judged_again_nor_counted_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base = _repo(tmp_path, {ITEM: research_item()})
    renamed = "Research/completed/2026-11-01-renamed.md"
    repo.rename(ITEM, renamed)  # a pure rename: the base version is byte for byte the document
    repo.commit("rename")
    log = tmp_path / "calls.log"

    code, report = _check(
        repo,
        capsys,
        renamed,
        "--judge",
        _judge(tmp_path, log),
        "--no-cache",
        "--gate-on",
        "new",
        "--base",
        base,
    )
    (result,) = report["results"]
    assert result["gate_on"]["base_path"] == ITEM and "base_judges" not in result["gate_on"]
    assert len(log.read_text().splitlines()) == 1 and report["summary"]["judge_calls"] == 1
    assert result["gate_on"]["base_scores"]["executive_summary_first_sentence"] == 4 and code == 0


def test_a_document_the_judging_budget_left_unjudged_stays_not_judged_under_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`budget:` spent before a document's judges were asked is this run's fact, never a finding
    its base version could have had: the head stays NOT_JUDGED (neither a PASS nor a FAIL)."""
    text = research_item()
    other = text.replace("Policy digest", "Other digest")
    repo, base = _repo(tmp_path, {ITEM: text, OTHER: other, ".evalgate.yml": "budget: {calls: 1}\n"})
    repo.commit("edit both", {ITEM: text.replace("It is cheap.", "It is cheap, too."), OTHER: other + "\n"})
    judge = _judge(tmp_path, tmp_path / "calls.log")

    code, report = _check(
        repo,
        capsys,
        ITEM,
        OTHER,
        "--judge",
        judge,
        "--no-cache",
        "--jobs",
        "1",
        "--gate-on",
        "new",
        "--base",
        base,
    )
    # one call: the calls run concurrently, so which of the four versions had it varies
    refused = [r for r in report["results"] if r["judges"][0].get("budget_refused")]
    assert refused and report["summary"]["not_judged"] == len(refused) and code == 1  # on-budget: fail
    for result in refused:
        assert result["verdict"] == "NOT_JUDGED", result["reasons"]
        assert result["reasons"] == [
            "not judged: budget reached (the run's judging budget of 1 call was spent)"
        ]
    for result in report["results"]:
        if result not in refused:  # judged, its base version not: a score below the floor counts
            assert result["verdict"] == "FAIL"
            assert result["reasons"][0].endswith("no score at the base commit to compare with")
