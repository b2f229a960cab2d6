"""The acronym_expansion check's data: acronyms.yml parsed into an AcronymTable.

acronyms.yml holds the protocol's table of required expansions, the self-review list of suggested
ones, the shorthand the protocol wants rewritten, and what is not an acronym (see docs/acronyms.md).
common_expansions.yml is the bundled list of common expansions, the last place a suggestion comes
from. A rubric's params and a repository's glossary (`.evalgate.yml` `acronyms:`) are laid over the
shipped table by `with_params`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from evalgate.rubrics.params import AUDIT_PHRASES, PROFILES, AcronymExpansionParams
from evalgate.yamlsafe import safe_load

_EMPTY: Mapping[str, str] = MappingProxyType({})

# The bundled tables sit beside this module (package data; importlib.resources cost every run ~3 ms).
_HERE = Path(__file__).parent


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
    # English words in capitals: not acronyms in a document that never writes `(WORD)`
    capitalised_words: frozenset[str] = frozenset()
    expansions: Mapping[str, str] = field(default_factory=lambda: _EMPTY)  # the repository glossary
    common: Mapping[str, str] = field(default_factory=lambda: _EMPTY)  # the bundled common expansions
    missing_letters: int = 1  # letters of a name in capitalised words that may come from no word
    audit_phrases: tuple[str, ...] = AUDIT_PHRASES  # a line holding one is an audit note (lower case)
    profiles: Mapping[str, str] = field(default_factory=lambda: _profiles(PROFILES))  # RL -> OWL|...

    def suggestion(self, abbr: str, in_document: str | None = None) -> str | None:
        """The expansion a finding should suggest, if one is known, in this order: the protocol's
        required expansion (the only one accepted), the document's own (a later or reversed
        expansion, `in_document`), the repository's glossary, the self-review list, the bundled
        common expansions."""
        return (
            self.required.get(abbr)
            or in_document
            or self.expansions.get(abbr)
            or self.checked.get(abbr)
            or self.common.get(abbr)
        )


def load_table(text: str | None = None) -> AcronymTable:
    """Parse acronyms.yml (the shipped file when `text` is None)."""
    if text is None:
        return _shipped_table()
    return _parse_table(text)


@lru_cache(maxsize=1)
def _shipped_table() -> AcronymTable:
    table = _parse_table((_HERE / "acronyms.yml").read_text(encoding="utf-8"))
    return replace(table, common=common_expansions())


@lru_cache(maxsize=1)
def common_expansions() -> Mapping[str, str]:
    """The bundled list of common expansions (common_expansions.yml): ABBR -> Expansion."""
    text = (_HERE / "common_expansions.yml").read_text(encoding="utf-8")
    raw = safe_load(text) or {}
    return MappingProxyType({str(k): str(v) for k, v in raw.items()})


@lru_cache(maxsize=8)
def with_params(params: AcronymExpansionParams | None) -> AcronymTable:
    """The shipped table with a rubric's params (and the repository glossary merged into them) laid
    over it; computed once per params, not per document."""
    table = _shipped_table()
    if params is None:
        return table
    return replace(
        table,
        required=table.required if params.required is None else MappingProxyType(dict(params.required)),
        not_acronyms=table.not_acronyms | frozenset(params.understood),
        expansions=MappingProxyType(dict(params.expansions)),
        missing_letters=params.missing_letters,
        audit_phrases=tuple(phrase.lower() for phrase in params.audit_phrases),
        profiles=_profiles(params.profiles),
    )


def _profiles(names: Mapping[str, tuple[str, ...]]) -> Mapping[str, str]:
    """PROFILE -> the names it may follow, as a regex alternation (`RL` -> `OWL`)."""
    after: dict[str, list[str]] = {}
    for name, profiles in names.items():
        for profile in profiles:
            after.setdefault(profile, []).append(re.escape(name))
    return MappingProxyType({profile: "|".join(found) for profile, found in after.items()})


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
        capitalised_words=frozenset(str(x) for x in raw.get("capitalised_words") or ()),
    )
