"""The JSON report's layout: the same data as json.dumps, outer levels one member per line, one
result per line."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.config import Config
from evalgate.report.jsonfile import pretty_json, render_json
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
