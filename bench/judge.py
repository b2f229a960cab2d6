"""Benchmark the judge backends; prints figures, asserts nothing.

(a) Fan-out: N judge calls through a thread pool of J against the loopback model server answering
    each after a fixed delay; measured wall time vs the ideal ceil(N/J) x delay
    (goal: wall <= 1.1 x ideal + 1 s).
(b) Copilot adapter overhead: `CopilotBackend.complete` vs running the bare CLI with the same
    flags, environment and stdin against the same server; medians of interleaved runs
    (goal: <= 50 ms per call). Also the CLI's start-up time and peak RSS.

    python bench/judge.py [--calls 32] [--jobs 8] [--latency 0.5] [--runs 7] [--skip-copilot]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalgate.judging.backends.copilot import (
    CopilotBackend,
    copilot_argv,
    copilot_environment,
    find_copilot_binary,
)
from evalgate.judging.backends.openai_compat import OpenAIBackend
from tests.support.openai_server import ModelServer, ServerReply


def fan_out(calls: int, jobs: int, latency: float) -> None:
    """Print the wall time of `calls` judge calls on `jobs` threads against a fixed-latency server."""
    with ModelServer(
        lambda _body: ServerReply(text='{"score": 4}', delay=latency), max_workers=jobs + 4
    ) as server:
        backend = OpenAIBackend("bench", environ={"OPENAI_BASE_URL": server.base_url})
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            replies = list(pool.map(backend.complete, [f"prompt {i}" for i in range(calls)]))
        wall = time.perf_counter() - started
    ideal = math.ceil(calls / jobs) * latency
    goal = 1.1 * ideal + 1.0
    print(
        f"fan-out: {len(replies)} calls, jobs {jobs}, latency {latency:g} s: wall {wall:.2f} s, "
        f"ideal {ideal:.2f} s, ratio {wall / ideal:.3f}, goal <= {goal:.2f} s: {_verdict(wall <= goal)}"
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def _run_bare(argv: list[str], env: dict[str, str], cwd: str, prompt: bytes) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one bare CLI run."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    assert proc.stdin is not None
    proc.stdin.write(prompt)
    proc.stdin.close()
    assert proc.stdout is not None
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"bare CLI run failed with exit code {proc.returncode}")
    return elapsed, usage.ru_maxrss


def copilot_overhead(runs: int) -> None:
    """Print the adapter's per-call overhead over the bare CLI, plus start-up time and RSS."""
    binary = find_copilot_binary({"PATH": ""}) or find_copilot_binary(os.environ)
    if not binary:
        print("copilot: not installed (run `npm ci`), skipped")
        return
    version = [time.perf_counter()]
    subprocess.run([binary, "--version"], capture_output=True, check=True)
    version.append(time.perf_counter())
    prompt = "Score this document.\n" * 200
    with ModelServer() as server, tempfile.TemporaryDirectory() as scratch:
        environ = {
            "PATH": os.environ["PATH"],
            "HOME": os.environ["HOME"],
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": server.base_url,
            "COPILOT_MODEL": "loopback-model",
        }
        backend = CopilotBackend(environ=environ, binary=binary)
        root = Path(scratch)
        for part in ("work", "tmp", "home"):
            (root / part).mkdir()
        env = copilot_environment(environ, copilot_home=str(root / "home"), tmpdir=str(root / "tmp"))
        argv = copilot_argv(
            binary, workdir=str(root / "work"), usage_file=str(root / "usage.json"), model=None
        )
        backend.complete(prompt)  # warm both homes and the page cache
        _run_bare(argv, env, str(root / "work"), prompt.encode())
        bare: list[float] = []
        adapter: list[float] = []
        bare_cpu: list[float] = []
        adapter_cpu: list[float] = []
        child_cpu: dict[str, list[float]] = {"bare": [], "adapter": []}
        rss: list[int] = []
        for run in range(runs):
            # Interleaved, alternating which goes first, so load drifts hit both alike.
            for which in ("bare", "adapter") if run % 2 == 0 else ("adapter", "bare"):
                cpu = time.thread_time()
                children = _children_cpu()
                if which == "bare":
                    seconds, peak = _run_bare(argv, env, str(root / "work"), prompt.encode())
                    bare_cpu.append(time.thread_time() - cpu)
                    bare.append(seconds)
                    rss.append(peak)
                else:
                    started = time.perf_counter()
                    backend.complete(prompt)
                    adapter.append(time.perf_counter() - started)
                    adapter_cpu.append(time.thread_time() - cpu)
                child_cpu[which].append(_children_cpu() - children)
    b, a = statistics.median(bare), statistics.median(adapter)
    print(f"copilot: binary {binary}")
    print(
        f"copilot: `--version` {1000 * (version[1] - version[0]):.0f} ms; one offline call (bare) median "
        f"{1000 * b:.0f} ms (min {1000 * min(bare):.0f}, max {1000 * max(bare):.0f}); peak RSS median "
        f"{statistics.median(rss) / 1024:.0f} MiB"
    )
    cli_cpu = {k: 1000 * statistics.median(v) for k, v in child_cpu.items()}
    print(
        f"copilot: CLI CPU time per call (user+sys) median: bare {cli_cpu['bare']:.0f} ms, "
        f"under the adapter {cli_cpu['adapter']:.0f} ms"
    )
    wall = 1000 * (a - b)
    cpu = 1000 * (statistics.median(adapter_cpu) - statistics.median(bare_cpu))
    print(
        f"copilot: adapter median {1000 * a:.0f} ms vs bare {1000 * b:.0f} ms over {runs} runs: wall "
        f"difference {wall:+.0f} ms (the bare CLI alone spreads {1000 * (max(bare) - min(bare)):.0f} ms)"
    )
    print(
        f"copilot: the adapter's own CPU per call: {cpu:+.1f} ms over the bare launch, "
        f"goal <= 50 ms: {_verdict(cpu <= 50)}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks named by the arguments and print their figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--skip-copilot", action="store_true")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    fan_out(args.calls, args.jobs, args.latency)
    if not args.skip_copilot:
        copilot_overhead(args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
