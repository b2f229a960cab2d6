"""The acronym_expansion check's data: acronyms.yml parsed into an AcronymTable.

acronyms.yml holds the protocol's table of required expansions, the self-review list of suggested
ones, the shorthand the protocol wants rewritten, and what is not an acronym (see docs/acronyms.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

from evalgate.yamlsafe import safe_load


@dataclass(frozen=True)
class Shorthand:
    """An abbreviation the protocol wants rewritten (A/B): accepted when the next word is one of `accept`."""

    accept: frozenset[str]
    advice: str


@dataclass(frozen=True)
class AcronymTable:
    """The check's data: required expansions, suggested ones, and what is not an acronym."""

    required: Mapping[str, str]  # the protocol's table: ABBR -> required expansion
    checked: Mapping[str, str]  # the self-review list: ABBR -> suggested expansion (any is accepted)
    shorthand: Mapping[str, Shorthand]
    mixed_case: frozenset[str]  # acronyms with lower-case letters inside (CoT, PaaS)
    not_acronyms: frozenset[str]

    def suggestion(self, abbr: str) -> str | None:
        """The expansion a finding should suggest, if the data knows one."""
        return self.required.get(abbr) or self.checked.get(abbr)


def load_table(text: str | None = None) -> AcronymTable:
    """Parse acronyms.yml (the shipped file when `text` is None)."""
    if text is None:
        return _shipped_table()
    return _parse_table(text)


@lru_cache(maxsize=1)
def _shipped_table() -> AcronymTable:
    return _parse_table((resources.files("evalgate.checks") / "acronyms.yml").read_text(encoding="utf-8"))


def _parse_table(text: str) -> AcronymTable:
    raw = safe_load(text) or {}
    shorthand = {
        str(k): Shorthand(frozenset(str(w).lower() for w in v.get("accept", ())), str(v.get("advice", "")))
        for k, v in (raw.get("shorthand") or {}).items()
    }
    groups = raw.get("not_acronyms") or {}
    return AcronymTable(
        required=MappingProxyType({str(k): str(v) for k, v in (raw.get("required") or {}).items()}),
        checked=MappingProxyType({str(k): str(v) for k, v in (raw.get("checked") or {}).items()}),
        shorthand=MappingProxyType(shorthand),
        mixed_case=frozenset(str(x) for x in raw.get("mixed_case") or ()),
        not_acronyms=frozenset(str(x) for group in groups.values() for x in group or ()),
    )
