"""amount_matches_tools_computed: the money amounts in a support reply, checked against the tool results.

A support-reply input item (YAML, see `evalgate.document.items`) holds `tool_results` (each a tool
name and a result mapping carrying a `currency`) and the `reply`. Every amount the reply writes as
`CUR 12.34` must equal some number in a tool result with that currency. Computed exactly, so the judged
criterion of the same name can be held to it: where they differ, the judge is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from evalgate.checks import CheckOutcome
from evalgate.document import Document
from evalgate.document.items import InputItemError, load_item
from evalgate.results import Finding

# `GBP 21.99`, `EUR 1,250.00`: a three-letter code, then the amount (thousands commas allowed).
AMOUNT = re.compile(r"\b([A-Z]{3})\s?(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\b")


def _numbers(value: Any) -> Iterator[Decimal]:
    """Every number anywhere inside a tool result (nested mappings and lists included)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield Decimal(str(value))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)


def tool_amounts(tool_results: Any) -> set[tuple[str, Decimal]]:
    """(currency, amount) pairs the tool results support."""
    found: set[tuple[str, Decimal]] = set()
    for entry in tool_results if isinstance(tool_results, list) else []:
        result = entry.get("result") if isinstance(entry, dict) else None
        if isinstance(result, dict) and isinstance(result.get("currency"), str):
            found.update((result["currency"].upper(), n) for n in _numbers(result))
    return found


def reply_amounts(reply: str) -> list[tuple[str, Decimal, str]]:
    """(currency, amount, as written) for every amount the reply states."""
    out = []
    for match in AMOUNT.finditer(reply):
        try:
            out.append((match[1], Decimal(match[2].replace(",", "")), match[0]))
        except InvalidOperation:
            continue
    return out


def _line_of(document: Document, written: str) -> int:
    for number, line in enumerate(document.lines, 1):
        if written in line:
            return number
    return 1


def check(document: Document, params: None = None) -> CheckOutcome:
    """1 when every amount in the reply is in the tool results with its currency, else 0."""
    try:
        item = load_item(document.text, document.path or "input")
    except InputItemError as exc:
        return CheckOutcome(0, (Finding(1, str(exc), rule="unreadable_item"),))
    reply = item.get("reply")
    if not isinstance(reply, str):
        return CheckOutcome(0, (Finding(1, "the item has no reply text to check", rule="no_reply"),))
    supported = tool_amounts(item.get("tool_results"))
    findings = tuple(
        Finding(
            _line_of(document, written),
            f"{written} appears in no tool result with currency {currency}",
            rule="unsupported_amount",
        )
        for currency, amount, written in reply_amounts(reply)
        if (currency, amount) not in supported
    )
    return CheckOutcome(0 if findings else 1, findings)
