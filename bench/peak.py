"""Run one command as a new process: its wall time, and the peak RSS of it and of each of its children.

Why not `wait4`'s `ru_maxrss` (or `/usr/bin/time -f %M`, which reads the same): on Linux it is the
larger of the process's own peak and its largest waited-for child's, so a command's main process and
its forked workers cannot be told apart; and a process started from this one (subprocess spawns
with vfork, then exec) begins with this process's high-water mark, so the bench's own size is
the floor of every figure (a 200 MB parent reports `true` at 200 MB).

Instead the command runs under `ptrace` (Linux): seized as soon as it has started, with every child it
forks or vforks followed, each stopped just before it exits (`PTRACE_EVENT_EXIT`, while its memory is
still mapped) for its `VmHWM` — that process's own peak RSS, counted from its exec or, for a forked
child, from its fork (a forked worker's RSS includes the pages it shares copy-on-write with its
parent). Nothing else is stopped; signals pass through. Where `ptrace` is not allowed the command
still runs and is timed, and the peaks are None (reported as not measured, never estimated).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

_SEIZE = 0x4206
_CONT = 7
_O_TRACEFORK, _O_TRACEVFORK, _O_TRACEEXIT = 0x02, 0x04, 0x40
_EVENT_EXIT = 6
_WALL = 0x40000000  # __WALL: wait for every traced child, however it was created


@dataclass(frozen=True)
class Peaks:
    """Peak RSS in MB of a command's main process and of each child process it (or they) started."""

    main_mb: float | None  # None: its exit was not seen (killed outright)
    children: tuple[tuple[str, float], ...] = field(default_factory=tuple)  # (program name, MB)
    main_name: str = ""  # a forked worker keeps its parent's name

    def workers(self) -> list[float]:
        """The peaks of the children that are copies of the main process (forked, no exec)."""
        return [mb for name, mb in self.children if name == self.main_name]

    @property
    def largest_child_mb(self) -> float | None:
        return max((mb for _name, mb in self.children), default=None)

    def child_names(self) -> str:
        """E.g. "1 git, 2 forked workers"."""
        counts: dict[str, int] = {}
        for name, _mb in self.children:
            label = "forked workers" if name == self.main_name else name
            counts[label] = counts.get(label, 0) + 1
        return ", ".join(f"{n} {label}" for label, n in sorted(counts.items())) or "none"


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    return libc


_LIBC = _libc()


def _status(pid: int) -> tuple[str, float] | None:
    """(program name, VmHWM in MB) of a live process, or None when /proc no longer shows it."""
    fields: dict[str, str] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            for line in status:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
    except OSError:
        return None
    if "VmHWM" not in fields:  # a kernel thread or its memory already gone
        return None
    return fields.get("Name", "?"), int(fields["VmHWM"].split()[0]) / 1024  # kB


def _trace(pid: int) -> bool:
    assert _LIBC is not None
    options = _O_TRACEFORK | _O_TRACEVFORK | _O_TRACEEXIT
    return _LIBC.ptrace(_SEIZE, pid, None, options) == 0


def _follow(main: int) -> tuple[int, Peaks]:
    """Resume every stop of `main` and its descendants until all have exited; return main's wait
    status and the peaks read at each exit stop."""
    assert _LIBC is not None
    live, main_status, main_mb, main_name = {main}, None, None, ""
    children: list[tuple[str, float]] = []
    while live:
        pid, status = os.waitpid(-1, _WALL)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            live.discard(pid)
            if pid == main:
                main_status = status
            continue
        live.add(pid)  # a new child's first stop can come before its parent's fork event
        sig, event, inject = os.WSTOPSIG(status), status >> 16, 0
        if sig == signal.SIGTRAP and event == _EVENT_EXIT:
            seen = _status(pid)
            if seen and pid == main:
                main_name, main_mb = seen
            elif seen:
                children.append(seen)
        elif event == 0 and sig not in (signal.SIGTRAP, signal.SIGSTOP):
            inject = sig  # an ordinary signal (SIGCHLD, SIGTERM, ...): deliver it
        _LIBC.ptrace(_CONT, pid, None, inject)
    assert main_status is not None
    return main_status, Peaks(main_mb, tuple(children), main_name)


def run(
    argv: list[str], *, cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0, 1), peaks: bool = True
) -> tuple[float, Peaks | None]:
    """Wall seconds of `argv` as a new process (output discarded; an exit code outside `ok` raises
    with its stderr) and, when `peaks` and ptrace allows, its peak RSS and its children's."""
    with open(cwd / ".peak-stderr", "w+b") as stderr:  # a file, not a pipe: a stopped child holds a pipe
        start = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        traced = peaks and _LIBC is not None and _trace(child.pid)
        if traced:
            status, seen = _follow(child.pid)
        else:
            _pid, status = os.waitpid(child.pid, 0)
            seen = None
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in ok:
            stderr.seek(0)
            text = stderr.read().decode(errors="replace")[-800:]
            raise RuntimeError(f"{argv[0]} exited {child.returncode}: {text}")
    return wall, seen


def available() -> str | None:
    """None when peaks can be measured here, else why not."""
    if _LIBC is None:
        return f"ptrace is Linux-only (this is {sys.platform})"
    probe = subprocess.Popen(["sleep", "0.1"])
    if not _trace(probe.pid):
        why = os.strerror(ctypes.get_errno())
        probe.wait()
        return f"ptrace refused: {why}"
    status, _peaks = _follow(probe.pid)
    probe.returncode = os.waitstatus_to_exitcode(status)
    return None
