"""Judge != generator: which model family a model name belongs to, and the warning when they match.

A judge grading text its own family wrote tends to favour it (self-preference), so every report says
so when a document names its generator and a judge shares its family. Families are matched on the
model name's stem after any provider prefix (`openai:`, `copilot:`, `anthropic/`): `gpt-4o` and
`o3-mini` are both OpenAI, `claude-sonnet-4.5` and `anthropic/claude-3-haiku` both Anthropic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# stem prefix -> family; checked longest first so `codellama` is not read as `code...`
_FAMILIES = {
    "gpt": "openai",
    "chatgpt": "openai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
    "davinci": "openai",
    "claude": "anthropic",
    "gemini": "google",
    "gemma": "google",
    "palm": "google",
    "llama": "meta",
    "codellama": "meta",
    "mistral": "mistral",
    "mixtral": "mistral",
    "codestral": "mistral",
    "ministral": "mistral",
    "grok": "xai",
    "deepseek": "deepseek",
    "qwen": "alibaba",
    "phi": "microsoft",
}


def model_family(name: str | None) -> str | None:
    """The family of a model name, or None for an empty name. Unknown models are their own family
    (the stem before the first `-`, `_`, `.` or `:`), so two unknown names still match each other."""
    if not name or not name.strip():
        return None
    stem = name.strip().lower().split(":")[-1].split("/")[-1]
    if not stem:
        return None
    for prefix in sorted(_FAMILIES, key=len, reverse=True):
        if stem.startswith(prefix) and (len(stem) == len(prefix) or not stem[len(prefix)].isalpha()):
            return _FAMILIES[prefix]
    return re.split(r"[-_.:]", stem, maxsplit=1)[0] or None


def generator_warnings(generator: str | None, judges: Iterable[tuple[str, str]]) -> list[str]:
    """One warning per judge, given as (label, model), of the generator's family (none when the
    generator is unknown)."""
    family = model_family(generator)
    if family is None:
        return []
    return [
        f"judge {label} is of the same model family ({family}) as the generator ({generator})"
        for label, model in judges
        if model_family(model) == family
    ]
