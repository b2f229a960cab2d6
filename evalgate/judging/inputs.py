"""Structured input items (knowledge-work, support-reply): a YAML file with named parts -> judge text.

A rubric with an `inputs` block is not about research markdown. Each input file is a YAML mapping;
only the parts the rubric names are shown to the judge, each under its own heading, in the rubric's
order. Everything else in the file (gold labels, the model or configuration that produced the
response, latency figures) is dropped here, which is what keeps the judge blind to the configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from evalgate.document.items import InputItemError, load_item
from evalgate.rubric import Rubric


def _render_value(value: Any) -> str:
    """A part's value as text: strings as written, a list of named texts as sub-sections, the rest
    (tool results, policy records) as block YAML, which judges read reliably."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and all(isinstance(v, Mapping) and "text" in v for v in value):
        blocks = [
            f"### {v.get('name', f'item {i}')}\n\n{str(v['text']).strip()}" for i, v in enumerate(value, 1)
        ]
        return "\n\n".join(blocks)
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100).strip()


def item_parts(rubric: Rubric, data: Mapping[str, Any], source: str) -> dict[str, str]:
    """The rubric's named parts of one item, rendered as text (absent optional parts are left out)."""
    if rubric.inputs is None:
        raise InputItemError(f"rubric {rubric.id} has no inputs block")
    parts: dict[str, str] = {}
    for part in rubric.inputs.parts:
        if part.name not in data or data[part.name] in (None, ""):
            if part.required:
                raise InputItemError(f"{source}: missing part {part.name!r} required by rubric {rubric.id}")
            continue
        parts[part.name] = _render_value(data[part.name])
    return parts


def compose(parts: Mapping[str, str]) -> str:
    """The judge's view of an item: each part under a `## name` heading."""
    return "\n\n".join(f"## {name}\n\n{text}" for name, text in parts.items()) + "\n"


def judge_view(rubric: Rubric, text: str, source: str = "input") -> str:
    """The text a judge sees for one input file of a rubric with `inputs` (raises InputItemError)."""
    return compose(item_parts(rubric, load_item(text, source), source))
