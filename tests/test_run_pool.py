"""The structural pass's worker pool: `fork` only when the process runs no other thread, `spawn`
otherwise, and either way the same results as the in-process pass, in the same order."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from evalgate.run import _start_method

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "gold" / "research-loop"

# Runs in a fresh interpreter (no pytest or xdist threads): 60 files, so the pool is used at jobs=2.
_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading
    from evalgate import run as run_module
    from evalgate.config import Config
    from evalgate.report.jsonfile import render_json

    def without_timings(value):  # as tests/support/timings.py: the one thing two runs may differ in
        if isinstance(value, dict):
            return {k: without_timings(v) for k, v in value.items() if k not in ("latency_ms", "wall_ms")}
        return [without_timings(v) for v in value] if isinstance(value, list) else value

    used = []
    original = run_module._start_method
    def recording():
        method = original()
        used.append(method)
        return method
    run_module._start_method = recording

    if sys.argv[2] == "thread":  # another thread alive while the pool starts
        stop = threading.Event()
        threading.Thread(target=stop.wait, daemon=True).start()
    if sys.argv[2] == "native":  # one that `threading` does not know of (as a C extension's)
        import _thread
        held = _thread.allocate_lock()
        held.acquire()
        _thread.start_new_thread(held.acquire, ())
        assert threading.active_count() == 1
    pooled = without_timings(json.loads(render_json(run_module.run(Config(jobs=2), [sys.argv[1]]))))
    alone = without_timings(json.loads(render_json(run_module.run(Config(jobs=1), [sys.argv[1]]))))
    print(json.dumps({"used": used, "same": pooled == alone, "files": len(pooled["results"])}))
    """
)


def _items(tmp_path: Path, count: int = 60) -> Path:
    folder = tmp_path / "items"
    folder.mkdir()
    golds = sorted(GOLD.glob("*.md"))
    for n in range(count):
        source = golds[n % len(golds)]
        (folder / f"{n:03d}-{source.name}").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def _run(folder: Path, mode: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(folder), mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=folder,
        timeout=120,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_single_threaded_run_forks_its_workers_and_matches_the_in_process_pass(tmp_path: Path) -> None:
    result = _run(_items(tmp_path), "alone")
    # one choice per run: the pooled run's workers, and the one worker of the run at jobs=1 (forked
    # where that is safe, so the per-document time budget holds there too)
    assert result == {"used": ["fork", "fork"], "same": True, "files": 60}


def test_a_run_with_another_thread_alive_spawns_its_workers_and_matches(tmp_path: Path) -> None:
    result = _run(_items(tmp_path), "thread")
    assert result == {"used": ["spawn"], "same": True, "files": 60}


@pytest.mark.skipif(sys.platform != "linux", reason="threads are counted through /proc on Linux")
def test_a_thread_threading_does_not_know_of_also_means_spawn(tmp_path: Path) -> None:
    result = _run(_items(tmp_path), "native")
    assert result == {"used": ["spawn"], "same": True, "files": 60}


def test_start_method_is_spawn_while_another_thread_runs() -> None:
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert _start_method() == "spawn"
    finally:
        stop.set()
        worker.join()
