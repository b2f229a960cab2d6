"""Structured input items (knowledge-work, support-reply): a YAML mapping of named parts.

Takes an input file's text; gives its mapping, or an `InputItemError` naming the file. Which parts a
judge sees is the rubric's business (`evalgate.judging.inputs`); a deterministic check may read the
parts it needs (`evalgate.checks.amount_matches_tools`).
"""

from __future__ import annotations

from typing import Any

import yaml

from evalgate.yamlsafe import safe_load


class InputItemError(ValueError):
    """An input file does not hold the parts its rubric needs; the message names the file and part."""


def load_item(text: str, source: str) -> dict[str, Any]:
    """Parse an input item's YAML text into a mapping; a clear error when it is not one."""
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        raise InputItemError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise InputItemError(f"{source}: an input item must be a YAML mapping of named parts")
    return data
