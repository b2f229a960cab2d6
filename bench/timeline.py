"""The corpus command's timeline: where its wall time goes around the structural pass.

    python bench/timeline.py [DIR] [--runs 3] [--tree TREE] [-- extra check options]

Runs `evalgate check DIR --judge none --format json --output TMP` in a fresh interpreter, with hooks
on the command's steps, and prints when (ms since the interpreter ran this script's first line)
the main process finished importing the CLI, started the check command, discovered the files and
forked each worker; when each worker finished its first file (its cold start: the checks imported
and their patterns compiled after the fork), finished its last, and what CPU it used; when the pool
was closed, run() returned and the process began to exit; and the main process's CPU. `--tree`
times the evalgate package in TREE instead of this one (e.g. `git archive main evalgate | tar -x -C
TREE`). Each run is one row per process; compare trees within one invocation, in the same minutes:
on this shared machine wall time drifts by tens of percent from one minute to the next.

The hooks wrap private functions of evalgate.cli, evalgate.run and evalgate.run.workers: this is a
diagnostic for passes on the pool, not a figure for users (bench/speed.py gives those). They import
evalgate.run before the command does, so its import (~17 ms) falls between "CLI imported" and "check
command" here.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"

# Run in the measured interpreter: sys.argv = [-c, tree, log, check arguments...].
HOOKED = """
import os, sys, time
ZERO = time.monotonic()
sys.path.insert(0, sys.argv[1])
LOG = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND)

def log(event, cpu=None):
    cpu = f" cpu={cpu * 1000:.1f}" if cpu is not None else ""
    os.write(LOG, f"{os.getpid()} {(time.monotonic() - ZERO) * 1000:.1f} {event}{cpu}\\n".encode())

import gc
gc.disable()
import evalgate.cli as cli
gc.freeze()
gc.enable()
log("CLI imported")
import evalgate.run as run_module
import evalgate.run.workers as workers

def wrap(owner, name, before=None, after=None):
    inner = getattr(owner, name)
    def hooked(*args, **kwargs):
        if before:
            log(before)
        value = inner(*args, **kwargs)
        if after:
            log(after)
        return value
    setattr(owner, name, hooked)

check = cli.COMMANDS["check"]
def check_command(args):
    log("check command")
    return check(args)
cli.COMMANDS["check"] = check_command
wrap(run_module, "discover", after="files discovered")
wrap(workers._Forked, "__init__", before="fork")
wrap(workers.Workers, "close", after="pool closed")
wrap(run_module, "run", after="run() returned")
end = cli._end_process
def end_process(code):
    log("main process exits", time.process_time())
    return end(code)
cli._end_process = end_process

serve = workers._serve
def worker_loop(channel, work, *rest):
    count, last = [0], [0.0]
    def each(target):
        outcome = work(target)
        count[0] += 1
        last[0] = time.monotonic()
        if count[0] == 1:
            log("worker: first file done", time.process_time())
        return outcome
    try:
        serve(channel, each, *rest)
    finally:
        os.write(LOG, f"{os.getpid()} {(last[0] - ZERO) * 1000:.1f} worker: last file done\\n".encode())
        log(f"worker: ends ({count[0]} files)", time.process_time())
workers._serve = worker_loop

sys.argv = ["evalgate", *sys.argv[3:]]
cli.main(None)
"""


def one_run(tree: Path, folder: Path, extra: list[str]) -> list[tuple[int, float, str]]:
    """One command's events: (pid, ms, event), in time order."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "events"
        log.touch()
        command = [str(folder), "--judge", "none", "--format", "json", "--output", f"{tmp}/report.json"]
        done = subprocess.run(
            [sys.executable, "-c", HOOKED, str(tree), str(log), "check", *command, *extra],
            check=False,
            stdout=subprocess.DEVNULL,
        )
        if done.returncode not in (0, 1):  # 1: a file failed the gate, as the corpus's do
            raise SystemExit(f"the check command ended with exit code {done.returncode}")
        events = []
        for line in log.read_text().splitlines():
            pid, ms, event = line.split(" ", 2)
            events.append((int(pid), float(ms), event))
    return sorted(events, key=lambda e: e[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the tree whose evalgate package runs")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)  # after it: the check command's options
    args, extra = parser.parse_args(argv[:cut]), argv[cut + 1 :]
    for number in range(1, args.runs + 1):
        events = one_run(args.tree.resolve(), args.folder, extra)
        main_pid = events[0][0]
        print(f"run {number}")
        for pid, ms, event in events:
            who = "main  " if pid == main_pid else f"{pid:<6}"
            print(f"  {ms:8.1f} ms  {who} {event}")


if __name__ == "__main__":
    main()
