"""Reading users' data files: safe YAML, and pydantic's validation of it into evalgate's own types.

YAML loads through libyaml's C parser when PyYAML was built with it: the same data as
`yaml.safe_load`, about eight times faster. Every YAML file or front matter evalgate reads goes
through it (the rubric and the acronym table are loaded by every run, the table by every worker).

The types a file validates into (`Rubric`, `Config`, ...) are frozen standard-library dataclasses, and
pydantic validates them (`validated`) only when a file or an option needs it: importing pydantic took
~0.1 s of every run, more than the structural check of a file. Their constraints are written with
`Constraint`, which pydantic reads when it builds a validator and which imports nothing itself."""

from __future__ import annotations

import functools
import operator
import re
from typing import Any, ClassVar, TypeVar

import yaml
from yaml.nodes import ScalarNode

SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


_STR = "tag:yaml.org,2002:str"
_RESOLVED_MAX = 4096  # plain scalars whose tag is remembered (keys and the values that recur)
_RESOLVED_LONGEST = 40  # longer ones (titles, summaries) seldom recur


class TextDatesLoader(SafeLoader):  # type: ignore[misc,valid-type]  # a base chosen at import time
    """SafeLoader that leaves dates and times as the text written (`2026-02-28T09:06:25+00:00`).

    For documents' front matter: nothing evalgate does with it needs a `datetime`, and a date that does
    not exist (`2026-02-30`) would otherwise make the whole front matter invalid YAML, ignoring its
    title with it. Resolving and building the timestamps was also about a sixth of the corpus's YAML
    time (~10 of ~65 ms).

    Every front matter is loaded with it (453 over the corpus, ~47 nodes each), and libyaml hands
    each node to these Python methods, which were a third of the load: so the plain scalars' tags are
    remembered (a plain scalar's tag is a function of its text alone: the implicit resolvers try the
    patterns for its first character; a quoted scalar is a `str`), a `str` scalar is built without
    `construct_object`'s bookkeeping (`construct_yaml_str` returns `node.value`; a scalar cannot be
    recursive, and an aliased one yields the same object either way), and the path-resolver hooks,
    which do nothing without path resolvers (SafeLoader has none), are C built-ins that ignore their
    arguments. The same data and errors as the plain form (tests/test_yamlsafe.py); -30% of the
    corpus's front-matter time."""

    yaml_implicit_resolvers: ClassVar[dict[str | None, list[tuple[str, re.Pattern[str]]]]] = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _resolved: ClassVar[dict[str, str]] = {}

    # libyaml calls these around every node; with no path resolvers BaseResolver's do nothing, and a
    # C callable that takes the same arguments is cheaper to call than a Python method.
    descend_resolver = slice  # type: ignore[assignment]  # (parent, index) -> an ignored slice
    ascend_resolver = int  # type: ignore[assignment]  # () -> an ignored 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._resolved = {}  # a subclass may resolve otherwise: its own memory

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            if not implicit[0]:  # quoted: no implicit resolver applies (and no path resolver is set)
                return self.DEFAULT_SCALAR_TAG  # type: ignore[no-any-return]
            tag = self._resolved.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(value) <= _RESOLVED_LONGEST and len(self._resolved) < _RESOLVED_MAX:
                    self._resolved[value] = tag
            return tag  # type: ignore[no-any-return]
        return super().resolve(kind, value, implicit)  # type: ignore[no-any-return]

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if node.tag == _STR and node.__class__ is ScalarNode:
            return node.value
        return super().construct_object(node, deep)


def safe_load(text: str, *, dates: bool = True) -> Any:
    """`yaml.safe_load(text)`: plain data only (no `!!python` tags); raises yaml.YAMLError. With
    `dates=False` a timestamp stays a string (see TextDatesLoader)."""
    return yaml.load(text, Loader=SafeLoader if dates else TextDatesLoader)


def yaml_words(message: str) -> str:
    """A validation message in the words of the YAML its author wrote: pydantic says "a valid tuple"
    for a list and "a (valid) dictionary or (an) instance of SomeType" for a mapping."""
    message = re.sub(r"a (?:valid )?dictionary", "a mapping", message.replace("a valid tuple", "a list"))
    return re.sub(r" or (an )?instance of \w+", "", message).removeprefix("Value error, ")


T = TypeVar("T")


STRICT: dict[str, Any] = {"extra": "forbid"}  # pydantic's configuration of a type that refuses unknown keys

_BOUNDS = {"ge": operator.ge, "gt": operator.gt, "le": operator.le, "lt": operator.lt}


class Constraint:
    """A field's constraints in pydantic's core-schema words (`Annotated[int, Constraint(ge=1)]`,
    `Constraint(pattern=r"^[a-z]+$")`), added to the schema pydantic builds for the field's type: so
    they are validated and published in the JSON schema like `Field(ge=1)`, without importing pydantic
    where the type is defined."""

    def __init__(self, **schema: Any) -> None:
        self.schema = schema

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        return {**handler(source), **self.schema}

    def admits(self, value: Any) -> bool:
        """Whether a number certainly meets these constraints, decided without pydantic: True only
        when every constraint is a bound (ge, gt, le, lt) that holds. False leaves the value to
        pydantic, which decides and words the error (a pattern, NaN)."""
        return all(k in _BOUNDS and _BOUNDS[k](value, bound) for k, bound in self.schema.items())

    def __repr__(self) -> str:
        return f"Constraint({', '.join(f'{k}={v!r}' for k, v in self.schema.items())})"


class Checked:
    """A field's own rule (a function that raises ValueError), which pydantic runs as soon as the
    field validates, as its AfterValidator would: the error names the field and comes beside the other
    fields' errors. The type's `__post_init__` runs the same rule (`field_rule`) for an object built
    directly, which pydantic never sees."""

    def __init__(self, rule: Any) -> None:
        self.rule = rule

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self._apply, handler(source))

    def _apply(self, value: Any) -> Any:
        self.rule(value)
        return value


def field_rule(name: str, rule: Any, value: Any) -> None:
    """Run a field's rule in `__post_init__`; its ValueError names the field."""
    try:
        rule(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


class Invalid(ValueError):
    """Data that does not validate; `errors` are pydantic's (`loc`, `type`, `msg`, ...)."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(errors)} validation error(s)")
        self.errors = errors


# pydantic's error types for a key the type does not have (a model's, a dataclass's)
UNKNOWN_KEY = frozenset({"extra_forbidden", "unexpected_keyword_argument"})


@functools.cache
def _adapter(kind: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(kind)


def validated(kind: type[T], data: Any) -> T:
    """`data` (plain YAML data) validated into `kind`, a dataclass or any type pydantic takes; raises
    Invalid. Imports pydantic on first use."""
    from pydantic import ValidationError

    try:
        return _adapter(kind).validate_python(data)  # type: ignore[no-any-return,arg-type]
    except ValidationError as exc:
        raise Invalid([dict(e) for e in exc.errors()]) from None


def json_schema(kind: Any, *, by_alias: bool = True) -> dict[str, Any]:
    """The JSON schema of `kind`, as pydantic validates it."""
    return _adapter(kind).json_schema(by_alias=by_alias)  # type: ignore[no-any-return]


def error_words(error: dict[str, Any]) -> str:
    """One validation error's message in the words of the YAML its author wrote."""
    return "unknown key" if error["type"] in UNKNOWN_KEY else yaml_words(str(error["msg"]))
