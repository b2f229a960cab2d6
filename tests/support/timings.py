"""Timings are the only values two runs of the same inputs may differ in: how long a call or a file
took (`latency_ms`, `wall_ms`). Tests that compare two runs compare them without."""

from __future__ import annotations

import re
from typing import Any

TIMING_FIELDS = ("latency_ms", "wall_ms")
# the text report's time on a judged file's line, and the run's on the summary line
TEXT_TIMINGS = re.compile(r"(?:\d+ min \d+ s|\d+\.\d+ s)")


def without_timings(value: Any) -> Any:
    """JSON data with every timing field removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def text_without_timings(text: str) -> str:
    """A text or markdown report with every time shown as `T`."""
    return TEXT_TIMINGS.sub("T", text)
