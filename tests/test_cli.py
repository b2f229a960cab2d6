"""`evalgate check` end to end: bad input is a per-file ERROR, the run goes on, exit codes hold."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalgate.cli import main
from tests.support.timings import text_without_timings

GOOD = """---
title: "Item"
---

# Item

## Research Question

Does it work?
"""


def run_json(args, capsys):
    code = main(["check", "--format", "json", *args])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_bad_inputs_each_get_a_clear_error_and_the_run_goes_on(workdir, capsys):
    (workdir / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (workdir / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (workdir / "empty.md").write_bytes(b"")
    (workdir / "huge.md").write_bytes(b"# big\n" + b"word " * (2 * 1024 * 1024))
    (workdir / "nofront.md").write_text("# Just a heading\n\nText.\n")
    (workdir / "brokenfront.md").write_text("---\ntitle: [unclosed\n---\n\n# T\n")
    (workdir / "crlf.md").write_bytes(("\ufeff" + GOOD).replace("\n", "\r\n").encode("utf-8"))
    (workdir / "nomd").mkdir()
    outside = workdir.parent / f"{workdir.name}-outside.md"
    outside.write_text(GOOD)
    os.symlink(outside, workdir / "escape.md")
    subprocess.run(["git", "init", "-q", str(workdir)], check=True)

    names = [
        "latin1.md",
        "binary.md",
        "empty.md",
        "huge.md",
        "nofront.md",
        "brokenfront.md",
        "crlf.md",
        "missing.md",
        "nomd",
        "escape.md",
    ]
    code, report, err = run_json(names, capsys)
    assert code == 1
    assert "Traceback" not in err
    by_path = {r["path"]: r for r in report["results"]}
    assert set(by_path) == set(names)
    errors = {p: r["error"] for p, r in by_path.items() if r["verdict"] == "ERROR"}
    assert "UTF-8" in errors["latin1.md"]
    assert "binary" in errors["binary.md"].lower()
    assert "MB" in errors["huge.md"] or "large" in errors["huge.md"]
    assert errors["missing.md"] == "no such file or directory"
    assert "no markdown" in errors["nomd"]
    assert "outside the repository root" in errors["escape.md"]
    # readable files are evaluated, with findings rather than errors
    for readable in ("empty.md", "nofront.md", "brokenfront.md", "crlf.md"):
        assert by_path[readable]["verdict"] == "FAIL", readable
        assert by_path[readable]["error"] is None
        assert len(by_path[readable]["dimensions"]) == 9
    assert report["summary"]["errors"] == 6


def test_json_shape(workdir, capsys):
    (workdir / "a.md").write_text(GOOD)
    code, report, _ = run_json(["a.md"], capsys)
    assert code == 1
    assert set(report) >= {"rubric", "results", "summary"}
    assert set(report["rubric"]) == {"id", "version"}
    result = report["results"][0]
    assert set(result) >= {"path", "verdict", "mean", "hard_failures", "error", "dimensions"}
    dim = result["dimensions"][0]
    assert set(dim) >= {"id", "kind", "score", "status", "hard_fail", "findings"}
    judged = [d for d in result["dimensions"] if d["kind"] == "judge"]
    assert judged and all(d["status"] == "skipped" and d["score"] is None for d in judged)
    assert any("skipped" in n for n in report["summary"]["notes"])


def test_jsonl_is_one_result_per_line(workdir, capsys):
    (workdir / "a.md").write_text(GOOD)
    (workdir / "b.md").write_text(GOOD)
    main(["check", "--format", "jsonl", "a.md", "b.md"])
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["path"] for line in lines] == ["a.md", "b.md"]


def test_usage_errors_exit_2(workdir, capsys):
    (workdir / ".evalgate.yml").write_text("rubrik: x\n")
    assert main(["check", "x.md"]) == 2
    assert "rubrik: unknown key" in capsys.readouterr().err
    (workdir / ".evalgate.yml").unlink()
    assert main(["check", "--rubric", "no-such-pack", "x.md"]) == 2
    assert main(["check", "--judge", "bogus:thing", "x.md"]) == 2
    err = capsys.readouterr().err
    assert "copilot" in err and "openai" in err


def test_output_file_and_unwritable_output(workdir, capsys):
    (workdir / "a.md").write_text(GOOD)
    assert main(["check", "--format", "json", "--output", "out.json", "a.md"]) == 1
    assert json.loads((workdir / "out.json").read_text())["results"][0]["path"] == "a.md"
    # a results path that cannot be written (its parent is a file): the report still reaches stdout
    assert main(["check", "--format", "json", "--output", "a.md/out.json", "a.md"]) == 2
    out = capsys.readouterr()
    assert json.loads(out.out)["results"][0]["path"] == "a.md"
    assert "cannot write a.md/out.json" in out.err


def _same_report(form: str, text: str) -> Any:
    """A report as two runs of the same inputs must give it: the times they took left out."""
    from tests.support.timings import text_without_timings, without_timings

    return without_timings(json.loads(text)) if form == "json" else text_without_timings(text)


@pytest.mark.parametrize("form", ["json", "text", "markdown"])
def test_a_report_is_the_same_text_on_stdout_in_a_file_and_in_a_pipe(workdir, capsys, form):
    # (the lines of a JSON report are kept encoded while the run goes on, and written as bytes)
    (workdir / "café ✓.md").write_text(GOOD, encoding="utf-8")
    assert main(["check", "--format", form, "--output", "out", "café ✓.md"]) == 1
    assert main(["check", "--format", form, "café ✓.md"]) == 1
    written = (workdir / "out").read_text(encoding="utf-8")
    assert "café ✓" in written and _same_report(form, capsys.readouterr().out) == _same_report(form, written)
    piped = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", "--format", form, "café ✓.md"],
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-16-le"},
    )
    assert _same_report(form, piped.stdout.decode("utf-16-le")) == _same_report(form, written)
    with contextlib.redirect_stdout(io.StringIO()) as caught:  # a caller's stand-in: no buffer, no encoding
        assert main(["check", "--format", form, "café ✓.md"]) == 1
    assert _same_report(form, caught.getvalue()) == _same_report(form, written)


def test_console_script_never_prints_a_traceback(workdir):
    (workdir / "binary.md").write_bytes(b"\x00\x01\x02")
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", "binary.md", "nothing-here.md"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "ERROR binary.md" in proc.stdout


@pytest.mark.parametrize("args", [["schema", "rubric"], ["check", "a.md"], ["glossary", "a.md"]])
def test_a_reader_that_goes_away_is_no_traceback(workdir, args):
    # `evalgate check | head`: the pipe is closed before evalgate writes; it was a BrokenPipeError trace
    (workdir / "a.md").write_text(GOOD)
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalgate", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_history_is_appended_per_run(workdir, capsys):
    (workdir / "a.md").write_text(GOOD)
    for _ in range(2):
        main(["check", "--history", "hist.jsonl", "a.md"])
    capsys.readouterr()
    records = [json.loads(line) for line in (workdir / "hist.jsonl").read_text().splitlines()]
    assert [r["path"] for r in records] == ["a.md", "a.md"]
    assert all(r["rubric_version"] for r in records)


JUDGE = """import sys
sys.stdin.read()
score = sys.argv[1]
ids = ["executive_summary_first_sentence", "claim_source_accuracy", "epistemic_labeling",
       "key_finding_specificity"]
print("| dimension | score | evidence | reasoning |")
print("|---|---|---|---|")
for i in ids:
    print(f"| {i} | {score} | Does it work? | ok |")
print("OVERALL: PASS")
"""


def test_two_judges_keep_each_score_and_report_agreement(workdir, capsys):
    (workdir / "a.md").write_text(GOOD)
    (workdir / "judge.py").write_text(JUDGE)
    _, report, _ = run_json(
        [
            "--no-cache",
            "--judge",
            f"command:{sys.executable} judge.py 4",
            "--judge",
            f"command:{sys.executable} judge.py 2",
            "a.md",
        ],
        capsys,
    )
    judged = [d for d in report["results"][0]["dimensions"] if d["kind"] == "judge"]
    assert all(d["score"] == 3 for d in judged)  # mean of 4 and 2
    assert all([s["score"] for s in d["judge_scores"]] == [4, 2] for d in judged)
    assert report["agreement"]["epistemic_labeling"]["exact"] == 0.0
    assert report["agreement"]["epistemic_labeling"]["within_one"] == 0.0
    assert len(report["results"][0]["judges"]) == 2


def test_markdown_summary_shows_agreement_and_warnings_on_passing_files(workdir, capsys):
    (workdir / "a.md").write_text(GOOD)
    (workdir / "judge.py").write_text(JUDGE)
    judges = [
        "--judge",
        f"command:{sys.executable} judge.py 4",
        "--judge",
        f"command:{sys.executable} judge.py 5",
    ]
    main(["check", "--no-cache", "--format", "markdown", *judges, "a.md"])
    summary = capsys.readouterr().out
    assert "### Judge agreement" in summary
    assert "| epistemic\\_labeling | 2 | 1 | 0% | 100% |" in summary


def test_check_does_not_import_the_judging_commands_modules(workdir):
    """`evalgate check` imports neither the modules of the other commands nor the judging stack
    (start-up time), yet `--help` still lists every command."""
    (workdir / "item.md").write_text(GOOD, encoding="utf-8")
    script = (
        "import sys\n"
        "from evalgate.cli import main\n"
        "code = main(['check', 'item.md', '--format', 'json', '--output', 'out.json'])\n"
        "loaded = sorted(m for m in sys.modules if m in {'evalgate.validity.calibrate',"
        " 'evalgate.validity.canary', 'evalgate.validity.compare', 'evalgate.github.merge',"
        " 'evalgate.validity.pilot', 'jinja2', 'requests'})\n"
        "print(code, loaded)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert proc.stdout.split("\n")[0] == "1 []"  # the item is incomplete, so it fails; nothing loaded
    help_text = subprocess.run(
        [sys.executable, "-m", "evalgate", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for name in ("calibrate", "canary", "compare", "merge", "pilot"):
        assert name in help_text


def test_listed_commands_help_is_their_modules_help():
    from evalgate.cli import build_parser

    def helps(parser):
        sub = next(a for a in parser._actions if a.dest == "command")
        return {c.dest: c.help for c in sub._choices_actions}

    assert helps(build_parser(for_command="")) == helps(build_parser())  # `evalgate`, `evalgate --help`
    assert helps(build_parser(for_command="bogus")) == helps(build_parser())  # its error lists them
    full = build_parser()
    sub = next(a for a in full._actions if a.dest == "command")
    assert "--bar" in sub.choices["calibrate"].format_help()  # a module command's own options


def test_a_command_builds_its_own_subparser_alone(capsys):
    """The command that runs gets its subparser and no other (each is an ArgumentParser to build);
    `--help` before a command, or no command, still lists every one."""
    from evalgate.cli import build_parser

    def commands(parser):
        return set(next(a for a in parser._actions if a.dest == "command").choices)

    assert commands(build_parser(for_command="check")) == {"check"}
    assert commands(build_parser(for_command="schema")) == {"schema"}
    assert commands(build_parser(for_command="fix")) == {"fix"}
    assert main(["schema", "config"]) == 0 and '"properties"' in capsys.readouterr().out
    for argv in (["--help"], ["-h", "check"]):
        with pytest.raises(SystemExit):
            main(argv)
        listed = capsys.readouterr().out
        assert all(name in listed for name in ("check", "prompt", "changed", "schema", "calibrate", "fix"))
    with pytest.raises(SystemExit):
        main(["bogus"])
    assert "invalid choice: 'bogus' (choose from 'check', 'prompt'" in capsys.readouterr().err


def test_the_console_script_imports_the_cli_with_the_collector_paused_then_frozen(workdir):
    """pyproject.toml's `evalgate` script is evalgate.__main__:main (pip's wrapper imports and calls
    it, as bench/userpython.py's does): the CLI's import runs with the cyclic collector paused, what it
    built is frozen out of later collections, and the command then runs with the collector on."""
    import tomllib

    from evalgate import __main__ as entry

    with open(Path(entry.__file__).parents[1] / "pyproject.toml", "rb") as project:
        assert tomllib.load(project)["project"]["scripts"]["evalgate"] == "evalgate.__main__:main"
    script = (
        "import atexit, gc, sys\n"
        "mid_import = []\n"  # a collection while evalgate.cli is loaded but not yet run to its end
        "cli = lambda: sys.modules.get('evalgate.cli')\n"
        "gc.callbacks.append(lambda phase, info: mid_import.append(cli() and not hasattr(cli(), 'main')))\n"
        "atexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count() > 10000,"
        " 'evalgate.config' in sys.modules, any(mid_import)))\n"
        "sys.argv = ['evalgate', 'schema', 'config']\n"
        "from evalgate.__main__ import main\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    *schema, state = proc.stdout.splitlines()
    assert json.loads("\n".join(schema))["title"] == "Config"
    # collecting afterwards; frozen: the CLI's import; loaded; and no collection ran mid-import
    assert state == "True True True False"


# Imported only by runs that need them: the HTTP stack and templates by judge calls or posting, rich
# by a progress bar on a terminal, the process pool by 48 files or more, markdown-it-py by a nested list.
NOT_FOR_ONE_FILE = (
    "pydantic",  # the shipped pack and the default configuration validate nothing at run time
    "pydantic_core",
    "requests",
    "urllib3",
    "jinja2",
    "rich",
    "markdown_it",
    "concurrent.futures.process",
    "evalgate.judging.setup",
    "evalgate.judging.judge",
    "evalgate.judgement",  # what a judge gave: the reply, the scores, the quotes
    "evalgate.rubrics.review_params",  # the research-review pack's checks' parameters
    "evalgate.github.api",
    "multiprocessing",  # one file is timed in this process (evalgate.run.timer), more forked by os.fork
    "subprocess",
    "evalgate.run.workers",
    "evalgate.checks.amount_matches_tools",  # a check of another rubric: only the rubric's checks load
    "decimal",
)
# Nor does one file judged by an openai: judge load what it does not use: the HTTP stack is the
# standard library's; other backends; the pool and the modules of other commands; statistics (with
# fractions and decimal) for a mean; pydantic without a file to validate.
NOT_FOR_A_JUDGED_FILE = (
    *(m for m in NOT_FOR_ONE_FILE if not m.startswith(("evalgate.judging.", "evalgate.judgement", "jinja2"))),
    "charset_normalizer",
    "idna",
    "evalgate.judging.backends.copilot",
    "evalgate.judging.backends.command",
    "evalgate.judging.backends.replay",
    "evalgate.judging.agreement",  # more than one judge only
    "evalgate.validity",
    "evalgate.fix",
    "evalgate.github",
    "statistics",
    "fractions",
)


def _loaded_after(script: str, cwd, env: dict[str, str] | None = None) -> tuple[list[str], list[str]]:
    """The lines `script` printed, and the sorted module names loaded once it ran."""
    code = script + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd, env=env
    )
    *printed, modules = proc.stdout.splitlines()
    return printed, json.loads(modules)


def test_a_structural_check_of_one_file_imports_nothing_it_does_not_use(workdir):
    """`evalgate check FILE --judge none` (a pre-commit hook) runs without the modules above: no
    pydantic either, with the shipped rubric pack, no .evalgate.yml and options argparse typed."""
    (workdir / "item.md").write_text(GOOD, encoding="utf-8")
    script = (
        "import sys\n"
        "from evalgate.cli import main\n"
        "code = main(['check', 'item.md', '--judge', 'none', '--format', 'json', '--output', 'out.json'])\n"
        "print(code)\n"
    )
    printed, loaded = _loaded_after(script, workdir)
    assert printed == ["1"]  # the item fails (it is incomplete)
    assert [m for m in NOT_FOR_ONE_FILE if m in loaded] == []
    report = json.loads((workdir / "out.json").read_text(encoding="utf-8"))
    assert [r["path"] for r in report["results"]] == ["item.md"]
    # the checks did run (in this process, under the document's timer: evalgate.run.timer)
    assert {d["id"]: d["status"] for d in report["results"][0]["dimensions"]}["section_presence"] == "scored"
    # an option that needs validation still gets it
    (workdir / "out.json").unlink()
    assert main(["check", "item.md", "--jobs", "0"]) == 2


def test_the_text_report_of_a_few_files_imports_no_rubric_health(workdir):
    """The default text report shows rubric health from HEALTH_MIN_FILES files on: for fewer, a
    pre-commit hook's one file, the health module is not imported at all (nor the other formats')."""
    (workdir / "item.md").write_text(GOOD, encoding="utf-8")
    script = (
        "from evalgate.cli import main\n"
        "print(main(['check', 'item.md', '--judge', 'none', '--output', 'out.txt']))\n"
    )
    printed, loaded = _loaded_after(script, workdir)
    assert printed == ["1"]
    assert "evalgate.report.text" in loaded
    unused = ("evalgate.report.health", "evalgate.report.jsonfile", "evalgate.report.summary")
    assert [m for m in unused if m in loaded] == []
    assert "FAIL" in (workdir / "out.txt").read_text(encoding="utf-8")


def test_a_judged_run_through_an_openai_endpoint_imports_no_third_party_http_stack(workdir):
    """`requests` (with urllib3, charset_normalizer and idna) cost a judged run ~0.1 s before its
    first call and as much again at exit; the judge backends speak HTTP with the standard library.
    The judge's replies are valid, so the run goes through every step of judging a file."""
    from tests.support.openai_server import ModelServer, ServerReply
    from tests.test_judged_run import JUDGED, PASS_ITEM, table

    (workdir / "item.md").write_text(PASS_ITEM.read_text(encoding="utf-8"), encoding="utf-8")
    script = (
        "from evalgate.cli import main\n"
        "print(main(['check', 'item.md', '--judge', 'openai:m', '--no-cache', '--format', 'json', "
        "'--output', 'out.json']))\n"
    )
    with ModelServer(lambda body: ServerReply(text=table(4, "-"))) as server:
        environ = {**os.environ, "OPENAI_BASE_URL": server.base_url}
        _, loaded = _loaded_after(script, workdir, environ)
        assert len(server.requests) == 1
    assert {"evalgate.judging.backends.transport", "jinja2"} <= set(loaded)
    assert [m for m in NOT_FOR_A_JUDGED_FILE if m in loaded] == []
    (result,) = json.loads((workdir / "out.json").read_text(encoding="utf-8"))["results"]
    assert [j["backend"] for j in result["judges"]] == ["openai"]
    assert {d["id"]: d["score"] for d in result["dimensions"] if d["kind"] == "judge"} == dict.fromkeys(
        JUDGED, 4
    )


def test_the_action_module_imports_no_http_stack_until_it_posts(tmp_path):
    _, loaded = _loaded_after("import evalgate.github.action", tmp_path)
    assert [m for m in ("requests", "urllib3", "jinja2", "rich", "multiprocessing") if m in loaded] == []


def test_an_unreadable_file_is_named_as_given_not_by_its_absolute_path(workdir, capsys):
    # In CI an absolute name is the runner's workspace path (/github/workspace/...), in the results
    # file and the annotation; `check` and `fix` name the file as the user gave it, like every finding.
    (workdir / "notes").mkdir()
    (workdir / "notes" / "bin.md").write_bytes(b"# x\n\x00")
    assert main(["check", "notes", "--format", "json"]) == 1
    (result,) = json.loads(capsys.readouterr().out)["results"]
    message = "notes/bin.md: binary file (NUL byte at offset 4), not markdown"
    assert result["error"] == message
    assert main(["fix", "notes"]) == 2
    assert capsys.readouterr().err == f"evalgate: {message}\n"


def test_only_the_process_own_command_freezes_the_heap(workdir):
    """`evalgate check` as the process's command (argv from sys.argv) freezes what it imported before
    the run, so the collector stops walking it, and what the run built before the process exits;
    called as a function (tests, a long-lived caller) it
    leaves the collector alone, as a freeze would keep that process's garbage cycles forever."""
    (workdir / "item.md").write_text(GOOD, encoding="utf-8")
    script = (
        "import gc, sys\n"
        "import evalgate.run\n"
        "from evalgate.cli import main\n"
        "real = evalgate.run.run\n"
        "def spy(*args, **kwargs):\n"
        "    print(gc.get_freeze_count() > 0)\n"
        "    return real(*args, **kwargs)\n"
        "evalgate.run.run = spy\n"
        "print(main(['check', 'item.md', '--judge', 'none', '--output', 'a.txt']))\n"
        "print(len(gc.get_objects()) < 200)\n"  # objects the collector walks
        "sys.argv = ['evalgate', 'check', 'item.md', '--judge', 'none', '--output', 'b.txt']\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=workdir)
    # as a function: never frozen, the collector walks tens of thousands of objects; as the process's
    # command: frozen before the run, and the process ends with the command's exit code
    frozen_before, code, walks_few, frozen_then = proc.stdout.split()
    assert (frozen_before, walks_few, frozen_then) == ("False", "False", "True")
    assert proc.returncode == int(code)
    # and, alone in its process, what the run built (imports included) is frozen once it returns: the
    # exit's last collection walks next to nothing (1,400 objects for this item without it)
    alone = (
        "import atexit, gc, sys\n"
        "from evalgate.cli import main\n"
        "atexit.register(lambda: print(len(gc.get_objects())))\n"  # main() ends the process
        "sys.argv = ['evalgate', 'check', 'item.md', '--judge', 'none', '--output', 'c.txt']\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", alone], capture_output=True, text=True, cwd=workdir)
    assert proc.returncode == int(code)
    assert int(proc.stdout) < 200
    same = [text_without_timings((workdir / name).read_text(encoding="utf-8")) for name in ("a.txt", "b.txt")]
    assert same[0] == same[1]


_TEARDOWN_PROBE = (
    "import atexit, os, sys, threading, types\n"
    "from evalgate.cli import main\n"
    "class Probe:\n"  # freed when the interpreter tears its modules down (sys.stdout may be gone)
    "    def __del__(self, write=os.write):\n"
    "        write(1, b'torn down\\n')\n"
    "def at_exit():\n"
    "    print('exit function ran', flush=True)\n"
    # a module made now, as main() has frozen everything older (and teardown leaves frozen cycles be)
    "    module = sys.modules['teardown_probe'] = types.ModuleType('teardown_probe')\n"
    "    module.probe = Probe()\n"
    "atexit.register(at_exit)\n"
    # a thread the exit must wait for: it runs until main() has looked at it and chosen the usual
    # exit (the wrapped _end_process returned), so no clock decides whether it is still alive then
    "if sys.argv[1] == 'thread':\n"
    "    import evalgate.cli as cli\n"
    "    looked = threading.Event()\n"
    "    end_process = cli._end_process\n"
    "    def _looked_at(code):\n"
    "        code = end_process(code)\n"
    "        looked.set()\n"
    "        return code\n"
    "    cli._end_process = _looked_at\n"
    "    threading.Thread(target=lambda: (looked.wait(), print('thread done', flush=True))).start()\n"
    "sys.argv = ['evalgate', *sys.argv[2:]]\n"
    "raise SystemExit(main())\n"
)


def test_the_process_own_command_ends_it_without_tearing_it_down(workdir):
    """As the process's command, `main` ends the process itself once the command is done: the exit
    functions run, the whole report reaches a pipe, the exit code is the command's, and the
    interpreter's object-by-object teardown is skipped (the probe's finalizer never runs). With a
    thread still running, which the exit must wait for, the interpreter ends it as usual."""
    for i in range(40):
        (workdir / f"item-{i:02}.md").write_text(GOOD, encoding="utf-8")
    (workdir / "broken.md").write_bytes(b"# x\n\x00")
    argv = ["check", ".", "--judge", "none", "--format", "json"]

    def ends(mode: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _TEARDOWN_PROBE, mode, *argv], capture_output=True, text=True, cwd=workdir
        )

    fast = ends("alone")
    assert fast.returncode == 1  # the binary file fails the run
    assert len(json.loads(fast.stdout.split("exit function ran")[0])["results"]) == 41
    assert fast.stdout.rstrip().endswith("exit function ran")
    assert "torn down" not in fast.stdout
    waited = ends("thread")
    assert waited.returncode == 1
    assert "thread done" in waited.stdout and "exit function ran" in waited.stdout
    assert waited.stdout.rstrip().endswith("torn down")
    # called as a function, main() returns and the caller's process goes on
    assert main(["check", "broken.md", "--judge", "none"]) == 1
