"""Judge != generator: model families, and the warning in every report when they match."""

from __future__ import annotations

import pytest

from evalgate.config import Config
from evalgate.document import parse_document
from evalgate.judging.family import generator_warnings, model_family
from evalgate.judging.setup import _generator_warning


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("gpt-4o", "openai"),
        ("openai:gpt-4o-mini", "openai"),
        ("o3-mini", "openai"),
        ("copilot:claude-sonnet-4.5", "anthropic"),
        ("anthropic/claude-3-haiku", "anthropic"),
        ("gemini-2.5-pro", "google"),
        ("meta-llama/llama-3.1-70b", "meta"),
        ("codellama-13b", "meta"),
        ("mixtral-8x7b", "mistral"),
        ("acme-large", "acme"),  # unknown: its own stem
        ("", None),
        (None, None),
    ],
)
def test_model_family(name, family):
    assert model_family(name) == family


def test_o_series_prefix_needs_a_boundary():
    assert model_family("omega-1") == "omega"  # not OpenAI's o-series


def test_warnings_name_each_same_family_judge():
    judges = [
        ("openai:gpt-4o", "gpt-4o"),
        ("copilot:claude-sonnet-4", "claude-sonnet-4"),
        ("openai:o3", "o3"),
    ]
    assert generator_warnings("gpt-5", judges) == [
        "judge openai:gpt-4o is of the same model family (openai) as the generator (gpt-5)",
        "judge openai:o3 is of the same model family (openai) as the generator (gpt-5)",
    ]
    assert generator_warnings(None, judges) == []
    assert generator_warnings("gemini-2.5-pro", judges) == []


class _Judge:
    def __init__(self, name: str, model: str) -> None:
        self.name, self.model = name, model


def test_run_warns_from_front_matter_then_config():
    judges = [_Judge("copilot", "claude-sonnet-4.5"), _Judge("openai", "gpt-4o")]
    doc = parse_document("---\nmodel: anthropic/claude-opus-4\n---\n# Item\n", "a.md")
    assert _generator_warning(doc, judges, Config()) == [
        "judge copilot:claude-sonnet-4.5 is of the same model family (anthropic) as the generator "
        "(anthropic/claude-opus-4)"
    ]
    plain = parse_document("# Item\n", "b.md")
    assert _generator_warning(plain, judges, Config()) == []
    warned = _generator_warning(plain, judges, Config(generator_model="gpt-5"))
    assert warned == ["judge openai:gpt-4o is of the same model family (openai) as the generator (gpt-5)"]
