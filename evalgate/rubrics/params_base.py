"""What every deterministic check's parameters type is (`CheckParams`: hashable by content) and the
rules the types of both packs share; evalgate.rubrics.params holds the research-loop checks' types
and the registry, evalgate.rubrics.review_params the research-review checks'."""

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from evalgate.yamlsafe import STRICT


@dataclass(frozen=True, kw_only=True, eq=False)
class CheckParams:
    """A deterministic check's parameters (`params:` under its dimension). Hashable by content, so a
    check can compile what it derives from them once per process (functools.lru_cache), not per file."""

    __pydantic_config__: ClassVar[dict[str, Any]] = STRICT

    @cached_property
    def _key(self) -> str:
        return repr(self)  # the class and every field, in order

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CheckParams) and self._key == other._key


def no_blank_entry(entries: tuple[str, ...]) -> None:
    """A list parameter's rule (`Checked(no_blank_entry)`): no entry is blank."""
    if any(not entry.strip() for entry in entries):
        raise ValueError("an entry must not be blank")
