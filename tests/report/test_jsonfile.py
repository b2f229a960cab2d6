"""The JSON report's layout: the same data as json.dumps, outer levels one member per line, one
result per line."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.config import Config
from evalgate.report.jsonfile import encoded_pieces, json_pieces, pretty_json, render_json, result_line
from evalgate.run import run

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(JSON, st.integers(min_value=0, max_value=4))
def test_pretty_json_is_the_same_data(value, expand) -> None:
    text = pretty_json(value, expand=expand)
    assert text.endswith("\n")
    assert json.loads(text) == value
    if expand == 0:
        assert text == json.dumps(value, ensure_ascii=False) + "\n"


def test_report_has_one_result_per_line(tmp_path) -> None:
    for n in range(3):
        (tmp_path / f"item{n}.md").write_text(f"# Item {n}\n\n## Sources\n\n- [x] é\n", encoding="utf-8")
    report = run(Config(), [str(tmp_path)])
    text = render_json(report)
    lines = text.splitlines()
    result_lines = [line for line in lines if line.startswith('    {"path": ')]
    assert len(result_lines) == 3
    assert [json.loads(line.rstrip(","))["path"] for line in result_lines] == [r.path for r in report.results]
    assert json.loads(text) == json.loads(json.dumps(report.to_json()))
    assert "é" in text  # UTF-8, not \\u escapes


@pytest.mark.parametrize("jobs", [1, 2])
def test_lines_rendered_during_the_run_make_the_same_report(tmp_path, jobs) -> None:
    """`evalgate check --format json` renders each result's line as its batch is decided (`each`,
    in the report's order: the targets that could not be read first); the report is byte for byte
    the one rendered afterwards. 70 files: with two jobs the worker pool does the pass."""
    for n in range(70):
        (tmp_path / f"item{n:02d}.md").write_text(f"# Item {n}\n\n## Sources\n\n- [x] é\n", encoding="utf-8")
    (tmp_path / "item05.md").write_bytes(b"# Caf\xe9\n")  # not UTF-8: an error result in its place
    lines: list[str] = []
    report = run(
        Config(jobs=jobs), [str(tmp_path), "missing.md"], each=lambda r: lines.append(result_line(r))
    )
    assert [json.loads(line)["path"] for line in lines] == [r.path for r in report.results]
    assert report.results[0].path == "missing.md" and report.results[6].verdict.value == "ERROR"
    assert render_json(report, lines) == render_json(report)
    assert "".join(json_pieces(report, lines)) == render_json(report)
    for encoding in ("utf-8", "utf-16-le"):  # what the command writes: its file's UTF-8, stdout's own
        encoded = [line.encode(encoding) for line in lines]
        written = b"".join(encoded_pieces(report, encoded, encoding, "strict"))
        assert written == render_json(report).encode(encoding)
    with pytest.raises(ValueError, match="70 rendered lines for 71 results"):
        render_json(report, lines[1:])


def test_a_report_without_results_in_pieces_is_the_same_text(tmp_path) -> None:
    report = run(Config(), [str(tmp_path / "nothing-*.md")])  # a glob that matches nothing: one error
    report = replace(report, results=())
    assert "".join(json_pieces(report, [])) == render_json(report) == render_json(report, [])
    assert json.loads(render_json(report))["results"] == []
