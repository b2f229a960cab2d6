"""The acronym glossary: where a finding's suggested expansion comes from (the document, then the
repository's glossary, then the bundled common expansions), `.evalgate.yml` `acronyms:` and its
glossary file, and `evalgate glossary PATH...`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from evalgate.checks.acronym_forms import initials_spell
from evalgate.checks.acronym_table import common_expansions
from evalgate.cli import main

BUNDLED = Path(__file__).resolve().parents[2] / "evalgate" / "checks" / "common_expansions.yml"


def _acronym_messages(tmp_path: Path, text: str, config: dict | None = None) -> list[str]:
    (tmp_path / "item.md").write_text(text, "utf-8")
    args = ["check", "item.md", "--format", "json", "--output", "out.json"]
    if config is not None:
        (tmp_path / "team.yml").write_text(yaml.safe_dump(config), "utf-8")
        args += ["--config", "team.yml"]
    main(args)
    (result,) = json.loads((tmp_path / "out.json").read_text("utf-8"))["results"]
    (dim,) = [d for d in result["dimensions"] if d["id"] == "acronym_expansion"]
    return [f["message"] for f in dim["findings"]]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_every_bundled_expansion_spells_its_acronym_by_initials() -> None:
    entries = common_expansions()
    assert len(entries) >= 100
    assert [abbr for abbr, expansion in entries.items() if not initials_spell(abbr, expansion)] == []
    # one entry a line, each a plain `ABBR: Expansion` with an optional `# source` comment
    lines = [x for x in BUNDLED.read_text("utf-8").splitlines() if x and not x.startswith("#")]
    assert len(lines) == len(entries)
    assert all(re.fullmatch(r"[A-Za-z0-9]+: [^#]+?(?:  # \S.*)?", x) for x in lines), lines


def test_the_bundled_list_suggests_when_nothing_else_does(tmp_path: Path) -> None:
    (message,) = _acronym_messages(tmp_path, "The GPU is fast.\n")
    assert message == 'GPU used without expansion; write "Graphics Processing Unit (GPU)" at first use'


def test_an_unknown_expansion_says_so_and_how_to_add_it(tmp_path: Path) -> None:
    (message,) = _acronym_messages(tmp_path, "The QZE is fast.\n")
    assert '"Full Name (QZE)"' in message
    assert "expansion is unknown" in message and "acronyms: expansions:" in message


def test_the_repository_glossary_comes_before_the_bundled_list(tmp_path: Path) -> None:
    config = {"acronyms": {"expansions": {"GPU": "Giant Panda Unit", "QZE": "Quick Zone Exchange"}}}
    messages = _acronym_messages(tmp_path, "The GPU is fast. The QZE too.\n", config)
    assert [m.split("; ")[1] for m in messages] == [
        'write "Giant Panda Unit (GPU)" at first use',
        'write "Quick Zone Exchange (QZE)" at first use',
    ]


def test_the_document_comes_before_the_repository_glossary(tmp_path: Path) -> None:
    config = {"acronyms": {"expansions": {"GPU": "Giant Panda Unit"}}}
    text = "The GPU is fast.\n\nA Graphical Processing Unit (GPU) is a chip.\n"
    (message,) = _acronym_messages(tmp_path, text, config)
    assert 'write "Graphical Processing Unit (GPU)" at first use' in message


def test_understood_acronyms_are_accepted_unexpanded(tmp_path: Path) -> None:
    assert _acronym_messages(tmp_path, "The GPU is fast.\n", {"acronyms": {"understood": ["GPU"]}}) == []


def test_a_glossary_file_is_read_and_evalgate_yml_overrides_it(tmp_path: Path) -> None:
    (tmp_path / "glossary.yml").write_text(
        "acronyms:\n  expansions:\n    QZE: Quick Zone Exchange\n    GPU: Giant Panda Unit\n"
        "  understood: [TPU]\n",
        "utf-8",
    )
    config = {"acronyms": {"glossary": "glossary.yml", "expansions": {"GPU": "Great Pixel Unit"}}}
    messages = _acronym_messages(tmp_path, "The GPU, the TPU and the QZE.\n", config)
    assert [m.split('"')[1] for m in messages] == ["Great Pixel Unit (GPU)", "Quick Zone Exchange (QZE)"]


@pytest.mark.parametrize(
    ("config", "glossary", "expected"),
    [
        ({"acronyms": {"expansions": {"GPU": "Graphics Unit"}}}, None, "acronyms.expansions.GPU"),
        ({"acronyms": {"expansions": {"gpu": "Graphics Processing Unit"}}}, None, "not an acronym"),
        (  # a line break would add a line where fix writes it (and spells GPU, so it passed)
            {"acronyms": {"expansions": {"GPU": "Graphics\nProcessing Unit"}}},
            None,
            "acronyms.expansions.GPU: 'Graphics\\nProcessing Unit' must be one line of text",
        ),
        ({"acronyms": {"understod": ["GPU"]}}, None, "acronyms.understod: unknown key"),
        (
            {"acronyms": {"glossary": "missing.yml"}},
            None,
            "missing.yml: cannot read the acronym glossary that acronyms: glossary: names: No such file",
        ),
        ({"acronyms": {"glossary": "g.yml"}}, "expansions:\n  TPU: Tensor Unit\n", "g.yml: expansions.TPU"),
        ({"acronyms": {"glossary": "g.yml"}}, "expansion: {}\n", "g.yml: expansion: unknown key"),
        (
            {"acronyms": {"glossary": "g.yml"}},
            "acronyms: {understood: [GPU]}\nextra: 1\n",
            "g.yml: extra: unknown key beside acronyms:",  # it named `acronyms` as the unknown key
        ),
        (
            {"acronyms": {"glossary": "g.yml"}},
            "expansions: [",
            "g.yml: not valid YAML",
        ),
    ],
)
def test_a_bad_glossary_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: dict, glossary: str | None, expected: str
) -> None:
    if glossary is not None:
        (tmp_path / "g.yml").write_text(glossary, "utf-8")
    (tmp_path / "team.yml").write_text(yaml.safe_dump(config), "utf-8")
    (tmp_path / "item.md").write_text("The GPU.\n", "utf-8")
    assert main(["check", "item.md", "--config", "team.yml"]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_glossary_command_harvests_pairs_most_frequent_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(
        "A Quick Zone Exchange (QZE) and a Tensor Processing Unit (TPU).\n\n`Not Code (NC)`\n", "utf-8"
    )
    (docs / "b.md").write_text("The Quick Zone Exchange (QZE) again; a list (API, CLI).\n", "utf-8")
    (docs / "c.md").write_text("The quick zone exchange (QZE), lower case.\n", "utf-8")
    assert main(["glossary", "docs"]) == 0
    out = capsys.readouterr().out
    assert yaml.safe_load(out) == {
        "acronyms": {"expansions": {"QZE": "Quick Zone Exchange", "TPU": "Tensor Processing Unit"}}
    }
    assert out.index("QZE: Quick Zone Exchange  # 3 files") < out.index("TPU:")
    # saved as is, it is a glossary the check reads
    (tmp_path / "glossary.yml").write_text(out, "utf-8")
    (tmp_path / "team.yml").write_text("acronyms: {glossary: glossary.yml}\n", "utf-8")
    (tmp_path / "item.md").write_text("The QZE is fast.\n", "utf-8")
    main(["check", "item.md", "--config", "team.yml", "--format", "json", "--output", "out.json"])
    assert 'write \\"Quick Zone Exchange (QZE)\\" at first use' in (tmp_path / "out.json").read_text("utf-8")


def test_glossary_command_reports_an_unreadable_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["glossary", "nowhere.md"]) == 1
    captured = capsys.readouterr()
    assert "nowhere.md" in captured.err and "expansions: {}" in captured.out
