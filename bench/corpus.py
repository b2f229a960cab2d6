"""Whole-corpus benchmark: `evalgate check` (in-process `run()`) over the first N items with three
judges, each an OpenAI-compatible stub server on 127.0.0.1.

    python bench/corpus.py [DIR] [--judges 3] [--jobs 8] [--sizes 100,200,453] [--latency-ms 20]

DIR defaults to ../shared/corpus/research-completed next to the repository. The stub servers (the
tests' `ModelServer`) answer every prompt with a valid score table for the dimensions the prompt's
reply format names, after a fixed delay, with scores that depend on the prompt and the judge (so
verdicts and agreement vary as with real judges). The judge reply cache is off.

Each size runs in a fresh subprocess, so the peak RSS printed is that size's own: `rss` is the
evaluating process (ru_maxrss), `workers` the largest of its structural worker processes. Printed per
size: files, wall seconds, judge calls, calls per second, verdict counts, peak RSS.

Addressing three servers: `openai:MODEL` takes its base URL from one `OPENAI_BASE_URL`, so the worker
registers a bench-only backend name in the explicit backend registry (`BACKENDS["stub"]`):
`stub:I` is an `OpenAIBackend` whose base URL is server I's. The run goes through the same
`make_backend` (retries, labels) and `judge_documents` as any `openai:` judge.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalgate.config import Config  # noqa: E402
from evalgate.judging.backends import Backend  # noqa: E402
from evalgate.judging.backends.openai_compat import OpenAIBackend  # noqa: E402
from evalgate.judging.backends.registry import BACKENDS, BackendSettings  # noqa: E402
from evalgate.run import run  # noqa: E402
from tests.support.openai_server import ModelServer, ServerReply, last_user_text  # noqa: E402

DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"
ROW_PREFIX = "| "


def reply_format_ids(prompt: str) -> list[str]:
    """The dimension ids the prompt's reply-format table asks for, in its order."""
    section = prompt[prompt.rfind("## Reply format") :]
    ids = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith(ROW_PREFIX) and len(cells) == 4 and cells[1] == "<1-5>":
            ids.append(cells[0])
    return ids


def score_table(prompt: str, judge: int) -> str:
    """A valid table reply: a score of 2-5 per dimension from a hash of the prompt, the dimension and
    the judge (judges agree often, not always), an evidence quote and a verdict line."""
    rows = ["| dimension | score | evidence | reasoning |", "| --- | --- | --- | --- |"]
    for dimension in reply_format_ids(prompt):
        digest = zlib.crc32(f"{dimension}\0{prompt}".encode())
        score = 2 + digest % 4 if (digest >> 8) % 4 else 2 + (digest + judge) % 4
        rows.append(f'| {dimension} | {score} | "Key Findings" | stub judge {judge} |')
    return "\n".join(rows) + "\n\nOVERALL: PASS\n"


def start_servers(count: int, latency_ms: float) -> list[ModelServer]:
    """`count` started stub servers; server i replies as judge i after `latency_ms`."""
    servers = []
    for judge in range(1, count + 1):

        def responder(body: dict[str, Any], judge: int = judge) -> ServerReply:
            prompt = last_user_text(body)
            return ServerReply(
                text=score_table(prompt, judge),
                delay=latency_ms / 1000,
                model=f"stub-{judge}",
                prompt_tokens=len(prompt) // 4,
                completion_tokens=60,
            )

        servers.append(ModelServer(responder, max_workers=64).start())
    return servers


def _register_stub_backend(urls: list[str]) -> None:
    def stub(arg: str, settings: BackendSettings) -> Backend:
        index = int(arg)
        return OpenAIBackend(f"stub-{index}", base_url=urls[index - 1], timeout=settings.timeout)

    BACKENDS["stub"] = stub


def _peak_rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux reports KiB


def _own_peak_rss_mb() -> float:
    """This process's own peak RSS. Not ru_maxrss: a child started by subprocess inherits its parent's
    high-water mark there, and the parent here holds every request the stub servers received."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return _peak_rss_mb(resource.RUSAGE_SELF)


def measure(directory: Path, size: int, urls: list[str], jobs: int) -> dict[str, Any]:
    """One size, in this process: evaluate the first `size` items; figures as a dict."""
    _register_stub_backend(urls)
    files = sorted(directory.glob("*.md"))[:size]
    judges = tuple(f"stub:{i}" for i in range(1, len(urls) + 1))
    config = Config(judges=judges, jobs=jobs, cache=False, root=str(directory), judge_timeout=60)
    started = time.perf_counter()
    report = run(config, [str(f) for f in files], base=directory)
    wall = time.perf_counter() - started
    summary = report.summary()
    return {
        "files": summary["evaluated"],
        "wall_s": round(wall, 2),
        "judge_calls": summary["judge_calls"],
        "calls_per_s": round(summary["judge_calls"] / wall, 1),
        "passed": summary["passed"],
        "failed": summary["failed"],
        "errors": summary["errors"],
        "judge_errors": sum(1 for r in report.results for j in r.judges if j.error),
        "rss_mb": round(_own_peak_rss_mb(), 1),
        "workers_rss_mb": round(_peak_rss_mb(resource.RUSAGE_CHILDREN), 1),
    }


def _measure_in_subprocess(directory: Path, size: int, urls: list[str], jobs: int) -> dict[str, Any]:
    argv = [sys.executable, __file__, str(directory), "--worker", str(size), "--jobs", str(jobs)]
    argv += ["--urls", ",".join(urls)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env={**os.environ})
    if done.returncode != 0:
        raise SystemExit(f"size {size} failed:\n{done.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


COLUMNS = (
    ("files", 6),
    ("wall_s", 8),
    ("judge_calls", 12),
    ("calls_per_s", 12),
    ("passed", 7),
    ("failed", 7),
    ("errors", 7),
    ("judge_errors", 13),
    ("rss_mb", 8),
    ("workers_rss_mb", 15),
)


def main(argv: list[str] | None = None) -> int:
    """Start the stub servers, measure each size in a fresh subprocess, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("directory", nargs="?", default=str(DEFAULT_DIR))
    parser.add_argument("--judges", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--sizes", default="100,200,453")
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)  # one size, in this process
    parser.add_argument("--urls", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    directory = Path(args.directory).resolve()
    if not directory.is_dir():
        print(f"bench/corpus.py: {directory} is not a directory", file=sys.stderr)
        return 2
    if args.worker:
        print(json.dumps(measure(directory, args.worker, args.urls.split(","), args.jobs)))
        return 0

    sizes = [int(s) for s in args.sizes.split(",")]
    servers = start_servers(args.judges, args.latency_ms)
    try:
        urls = [s.base_url for s in servers]
        print(
            f"{directory} · {args.judges} stub judges at {args.latency_ms:g} ms · jobs {args.jobs} · "
            f"{os.cpu_count()} CPUs · cache off"
        )
        print("".join(name.rjust(width) for name, width in COLUMNS))
        for size in sizes:
            figures = _measure_in_subprocess(directory, size, urls, args.jobs)
            print("".join(str(figures[name]).rjust(width) for name, width in COLUMNS), flush=True)
        print(f"requests served: {sum(len(s.requests) for s in servers)}")
    finally:
        for server in servers:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
