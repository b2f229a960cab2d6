"""What a run or a document used, in words every format shares: calls, tokens, dollars, premium
requests and AI credits, and time. An amount some call did not report is never shown as a total:
"at least $0.0400 (2 calls of unknown cost)", or "unknown (3 calls of unknown cost)" when no call
reported one.
"""

from __future__ import annotations

from evalgate.results import FileResult, Report
from evalgate.usage import Amount, Usage


def dollars(value: float) -> str:
    """`$0.0123`: four decimals, since one judge call costs fractions of a cent."""
    return f"${value:.4f}"


def _calls(n: int) -> str:
    return f"{n} call{'' if n == 1 else 's'}"


def cost_text(amount: Amount) -> str:
    """A dollar amount that says what it does not know."""
    if not amount.unknown_calls:
        return dollars(amount.known)
    unknown = f"{_calls(amount.unknown_calls)} of unknown cost"
    if amount.known == 0:
        return f"unknown ({unknown})"
    return f"at least {dollars(amount.known)} ({unknown})"


def _count(amount: Amount, what: str, unit: str = "") -> str:
    number = f"{amount.known:,.0f}" if float(amount.known).is_integer() else f"{amount.known:,.2f}"
    if not amount.unknown_calls:
        return f"{number}{unit}"
    missing = f"{_calls(amount.unknown_calls)} without {what}"
    if amount.known == 0:
        return f"unknown ({missing})"
    return f"at least {number}{unit} ({missing})"


def tokens_text(usage: Usage) -> str:
    """`12,345 in / 678 out`, saying when some call did not report its counts."""
    tin, tout = usage.tokens_in, usage.tokens_out
    if tin.unknown_calls != tout.unknown_calls:  # one side reported, the other not: say each
        return f"{_count(tin, 'a count', ' in')} / {_count(tout, 'a count', ' out')}"
    counts = f"{tin.known:,.0f} in / {tout.known:,.0f} out"
    if not tin.unknown_calls:
        return counts
    missing = f"{_calls(tin.unknown_calls)} without counts"
    if tin.known == 0 and tout.known == 0:
        return f"unknown ({missing})"
    return f"at least {counts} ({missing})"


def seconds(ms: float) -> str:
    """`0.42 s`, `12.3 s`, `4 min 05 s`."""
    value = ms / 1000
    if value < 10:
        return f"{value:.2f} s"
    if value < 60:
        return f"{value:.1f} s"
    minutes, rest = divmod(round(value), 60)
    return f"{minutes} min {rest:02d} s"


def usage_parts(usage: Usage) -> list[str]:
    """The parts of a judging line: calls (cached), tokens, cost, and for Copilot's calls the premium
    requests and AI credits the CLI reported."""
    calls = _calls(usage.calls) + (f" ({usage.cached} cached)" if usage.cached else "")
    parts = [calls]
    if usage.calls:
        parts += [f"tokens {tokens_text(usage)}", f"cost {cost_text(usage.cost_usd)}"]
    if usage.copilot_calls:
        parts.append(f"premium requests {_count(usage.premium_requests, 'a count')}")
        parts.append(f"AI credits {_count(usage.credits, 'a count')}")
    return parts


def run_usage_line(report: Report) -> str | None:
    """`judging: 12 calls (3 cached) · tokens ... · cost ...`, or None when no file was judged."""
    if not any(r.judges for r in report.results):
        return None
    return "judging: " + " · ".join(usage_parts(report.usage))


def shows_file_usage(report: Report) -> bool:
    """Whether text and markdown show each file's time and cost: when judges ran or a file went over
    its budget. A structural pass takes milliseconds a file, which only the JSON keeps for every run."""
    return any(r.judges or r.over_budget for r in report.results)


def file_usage(result: FileResult) -> str | None:
    """A file's time and, when judged, its calls and cost: `12.3 s · 3 calls · $0.0040`."""
    parts = []
    if result.wall_ms is not None:
        parts.append(seconds(result.wall_ms))
    if result.judges:
        usage = result.usage
        parts.append(_calls(usage.calls) + (" (cached)" if usage.cached and not usage.calls else ""))
        if usage.calls:
            parts.append(f"cost {cost_text(usage.cost_usd)}")
    return " · ".join(parts) or None
