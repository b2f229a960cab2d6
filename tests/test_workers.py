"""The worker pool itself (evalgate.run.workers): outcomes in the targets' order; a worker handed its
next targets before its caller gets the outcomes it sent, so it never waits for the caller's work
between chunks; chunks that shrink towards the end, so the workers finish together; the per-target
budget and a worker's death costing one target alone, with more targets handed out behind it; and,
on the last map, each worker let go as soon as it has nothing left.

Each case runs in a fresh interpreter: pytest's own threads make forking unsafe here."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the workers are forked on Linux only")

# The pool on integers: `work` gives (target, its square, the worker's pid); the script's own lines
# follow, and it prints one JSON line.
_PREAMBLE = textwrap.dedent(
    """
    import json, os, sys, time
    from evalgate.run import workers as w

    sizes = []  # the size of every chunk handed out, in order
    send = w._Pipes.send
    def recording(self, obj):
        if isinstance(obj, list):
            sizes.append(len(obj))
        send(self, obj)
    w._Pipes.send = recording

    def work(n):
        return n, n * n, os.getpid()

    def timed_out(n, why):
        return n, why, None

    def pool(work=work, count=2, budget=30.0):
        return w.Workers(count, work, budget, timed_out, lambda: "fork")

    def mapped(p, targets, **options):
        try:
            return list(p.map(targets, **options))
        finally:
            p.close()
    """
)


def _run(body: str, *args: str) -> dict:
    script = _PREAMBLE + textwrap.dedent(body)
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_outcomes_come_in_order_from_both_workers_in_chunks_that_shrink_to_one() -> None:
    got = _run(
        """
        outcomes = mapped(pool(), range(200))
        print(json.dumps({"outcomes": [o[:2] for o in outcomes], "pids": len({o[2] for o in outcomes}),
                          "sizes": sizes, "chunk": w.CHUNK}))
        """
    )
    assert got["outcomes"] == [[n, n * n] for n in range(200)]
    assert got["pids"] == 2
    sizes = got["sizes"]
    assert sum(sizes) == 200
    assert sizes[0] == got["chunk"]  # many left: full chunks, few round trips
    assert sizes[-4:] == [1, 1, 1, 1]  # the end: one at a time, so neither worker holds a last chunk
    assert sizes == sorted(sizes, reverse=True)


def test_a_worker_has_its_next_targets_before_the_caller_gets_the_outcomes_it_sent(tmp_path) -> None:
    # The first worker is handed targets 0-7, the second 8-15. The caller stops at the 7th outcome
    # (its work: deciding and rendering results); the worker that sent it is then on its 8th and
    # last target, and only if it was handed more before the caller got the outcome does it go on
    # while the caller waits. (A pool that hands out targets only when a worker has none left leaves
    # both idle here: 16 done, and the 30 s wait fails.)
    got = _run(
        """
        folder = sys.argv[1]
        def marking(n):
            open(os.path.join(folder, str(n)), "w").close()
            return work(n)
        p = pool(marking)
        done = None
        try:
            for n, _square, _pid in p.map(range(400)):  # many: full chunks of eight at first
                if n == 6:
                    deadline = time.monotonic() + 30
                    while len(os.listdir(folder)) < 17 and time.monotonic() < deadline:
                        time.sleep(0.01)
                    done = len(os.listdir(folder))
        finally:
            p.close()
        print(json.dumps({"done while the caller waited": done}))
        """,
        str(tmp_path),
    )
    assert got["done while the caller waited"] >= 17


# What happens to the worker on target 7, the budget, and what that target's outcome then says.
_FAULTS = {
    "hangs": ("time.sleep(600)", 1.0, "took longer than 1 s"),
    "dies": ("os.kill(os.getpid(), signal.SIGKILL)", 30.0, "its worker process died (exit code -9)"),
}


@pytest.mark.parametrize("fault", sorted(_FAULTS))
def test_a_target_that_hangs_or_kills_its_worker_costs_itself_alone(fault: str) -> None:
    # Target 7 is the last of the first worker's first chunk (0-7 of 400): by the time it is on it,
    # it has been handed 16-23 behind it, which go to a new worker with the rest.
    action, budget, why = _FAULTS[fault]
    got = _run(
        f"""
        import signal
        def faulty(n):
            if n == 7:
                {action}
            return work(n)
        outcomes = mapped(pool(faulty, budget={budget}), range(400))
        print(json.dumps({{"outcomes": [o[:2] for o in outcomes]}}))
        """
    )
    expected = [[n, n * n] for n in range(400)]
    expected[7] = [7, why]
    assert got["outcomes"] == expected


def test_a_worker_that_died_before_it_was_handed_more_costs_its_target_alone() -> None:
    # The first worker dies on target 7 having sent 0-6; the pool hands it more (16-23, or the
    # chunk after) when it takes 6's outcome, and here not before the worker is dead (a zombie):
    # the pipe it writes to is closed, and the worker's queue still goes to a new one.
    got = _run(
        """
        import signal
        def faulty(n):
            if n == 7:
                os.kill(os.getpid(), signal.SIGKILL)
            return work(n)
        def zombie():
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/stat") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if fields[0] == "Z" and int(fields[1]) == os.getpid():
                    return True
            return False
        held, died = w._Pipes.send, []
        def late(self, obj):  # the chunks from 16 on wait for the first worker's death
            if isinstance(obj, list) and obj and obj[0][0] >= 16 and not died:
                deadline = time.monotonic() + 30
                while not zombie() and time.monotonic() < deadline:
                    time.sleep(0.01)
                died.append(True)
            held(self, obj)
        w._Pipes.send = late
        outcomes = mapped(pool(faulty), range(400))
        print(json.dumps({"outcomes": [o[:2] for o in outcomes]}))
        """
    )
    expected = [[n, n * n] for n in range(400)]
    expected[7] = [7, "its worker process died (exit code -9)"]
    assert got["outcomes"] == expected


@pytest.mark.parametrize("last", [True, False])
def test_on_the_last_map_each_worker_ends_once_it_has_nothing_left(last: bool) -> None:
    # A worker that has ended and is not yet waited for is a zombie ("Z" in /proc/PID/stat). Without
    # `last` the workers wait for more until close(); with it each ends on its own first.
    got = _run(
        """
        def state(pid):
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0]
        def ended(pid):
            deadline = time.monotonic() + 30
            while state(pid) != "Z" and time.monotonic() < deadline:
                time.sleep(0.01)
            return state(pid) == "Z"
        last = sys.argv[1] == "True"
        p = pool()
        pids = set()
        try:
            for _n, _square, pid in p.map(range(50), last=last):
                pids.add(pid)
            before_close = [ended(pid) if last else state(pid) == "Z" for pid in sorted(pids)]
        finally:
            p.close()
        gone = [not os.path.exists(f"/proc/{pid}") for pid in sorted(pids)]
        print(json.dumps({"ended before close": before_close, "gone": gone}))
        """,
        str(last),
    )
    assert got["ended before close"] == [last, last]
    assert got["gone"] == [True, True]  # close() waited for every worker, let go or not


def test_a_map_after_a_map_uses_the_same_workers() -> None:
    got = _run(
        """
        p = pool()
        first = list(p.map(range(30)))
        second = mapped(p, range(30, 60), last=True)
        print(json.dumps({"outcomes": [o[:2] for o in first + second],
                          "pids": len({o[2] for o in first} | {o[2] for o in second})}))
        """
    )
    assert got["outcomes"] == [[n, n * n] for n in range(60)]
    assert got["pids"] == 2
