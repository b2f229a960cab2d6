"""Checks as data: a deterministic dimension's `params:` in the rubric change what the check finds and
say so in its messages; the shipped rubric's params are the checks' defaults; bad params are errors
naming the file, the dimension and the key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalgate.checks import acronym_expansion, evidence_map_coverage, key_finding_word_count, run_check
from evalgate.checks import section_presence as sp
from evalgate.checks.acronym_table import load_table
from evalgate.checks.source_reasons import ACCESS_NOTES, NOT_CONSULTED_LABELS, REASONS
from evalgate.cli import main
from evalgate.document import parse_document
from evalgate.results import Status
from evalgate.rubric import RubricError, load_rubric, parse_rubric, rubric_json_schema
from evalgate.rubrics.params import (
    AcronymExpansionParams,
    EvidenceMapCoverageParams,
    KeyFindingWordCountParams,
    SectionPresenceParams,
    SourceConsultationParams,
)
from evalgate.yamlsafe import validated
from tests.checks.research_item import FINDINGS, research_item


def _rubric_data() -> dict[str, Any]:
    return yaml.safe_load(
        (Path(__file__).resolve().parents[2] / "evalgate/rubrics/research-loop.yml").read_text("utf-8")
    )


def _dimension(data: dict[str, Any], dimension_id: str) -> dict[str, Any]:
    return next(d for d in data["dimensions"] if d["id"] == dimension_id)


def _custom_rubric(tmp_path: Path) -> Path:
    """A copy of research-loop with min_words: 30 and one more required section."""
    data = _rubric_data()
    _dimension(data, "key_finding_word_count")["params"]["min_words"] = 30
    _dimension(data, "section_presence")["params"]["required"].append({"title": "Limitations"})
    path = tmp_path / "team.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
    return path


def _findings(report: dict[str, Any], dimension_id: str) -> list[str]:
    (result,) = report["results"]
    dim = next(d for d in result["dimensions"] if d["id"] == dimension_id)
    return [f["message"] for f in dim["findings"]]


def _check_json(tmp_path: Path, *rubric: str) -> dict[str, Any]:
    out = tmp_path / "out.json"
    main(["check", str(tmp_path / "item.md"), "--format", "json", "--output", str(out), *rubric])
    return json.loads(out.read_text("utf-8"))


def test_shipped_params_are_the_checks_defaults() -> None:
    rubric = load_rubric("research-loop")
    assert rubric.dimension("key_finding_word_count").params == KeyFindingWordCountParams()
    assert rubric.dimension("evidence_map_coverage").params == EvidenceMapCoverageParams()
    sections = rubric.dimension("section_presence").params
    assert isinstance(sections, SectionPresenceParams) and sections.required is not None
    assert sp.required_from_specs(sections.required) == sp.REQUIRED
    assert sections.placeholders == sp.PLACEHOLDER_PHRASES
    sources = rubric.dimension("source_consultation").params
    assert isinstance(sources, SourceConsultationParams)
    assert (sources.reasons, sources.not_consulted_labels, sources.access_notes) == (
        REASONS,
        NOT_CONSULTED_LABELS,
        ACCESS_NOTES,
    )
    acronyms = rubric.dimension("acronym_expansion").params
    assert isinstance(acronyms, AcronymExpansionParams) and acronyms.sections == ()
    assert dict(acronyms.required or {}) == dict(load_table().required)


def test_a_custom_rubric_changes_findings_and_names_its_numbers(tmp_path: Path) -> None:
    (tmp_path / "item.md").write_text(research_item(), "utf-8")
    shipped = _check_json(tmp_path)
    assert _findings(shipped, "key_finding_word_count") == []
    assert _findings(shipped, "section_presence") == []

    custom = _check_json(tmp_path, "--rubric", str(_custom_rubric(tmp_path)))
    words = _findings(custom, "key_finding_word_count")
    assert len(words) == len(FINDINGS)  # every finding is 20-29 words: all short of 30
    assert all(m.endswith("; 30 are required") for m in words), words
    assert _findings(custom, "section_presence") == ["missing required section ## Limitations"]
    assert custom["rubric"]["version"] != shipped["rubric"]["version"]


def test_version_changes_with_params_and_not_without(tmp_path: Path) -> None:
    data = _rubric_data()
    same = parse_rubric(yaml.safe_dump(data), "copy.yml")
    assert same.version == load_rubric("research-loop").version
    _dimension(data, "evidence_map_coverage")["params"]["match_threshold"] = 0.5
    assert parse_rubric(yaml.safe_dump(data), "copy.yml").version != same.version
    # a rubric written before params (and groups) existed keeps its version: absent ones are not hashed
    bare = load_rubric("knowledge-work")
    data = bare.as_data()
    assert all(d.pop("params") is None and d.pop("group") is None for d in data["dimensions"])
    del data["calibration"]  # the calibration floors are never hashed (tests/validity/test_calibrate.py)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
    assert bare.version == hashlib.sha256(canonical.encode()).hexdigest()[:12]


def test_finding_count_range_is_a_param() -> None:
    text = research_item()  # six findings
    assert key_finding_word_count.check(parse_document(text)).score == 5
    outcome = key_finding_word_count.check(
        parse_document(text), KeyFindingWordCountParams(min_findings=8, max_findings=10)
    )
    assert outcome.score == 2  # two under the minimum, as 4 is under 6
    assert [f.message for f in outcome.findings] == ["6 Key Findings; the protocol asks for 8-10"]
    assert key_finding_word_count.score(7, 0, 8, 10) == 3  # one outside: 5 or 13 for 6-12
    assert key_finding_word_count.score(11, 0, 8, 10) == 3
    assert key_finding_word_count.score(4, 0, 8, 10) == 1


def test_match_threshold_is_a_param_and_its_message_names_it() -> None:
    document = parse_document(research_item())
    assert evidence_map_coverage.check(document).score == 5
    strict = evidence_map_coverage.check(
        document, EvidenceMapCoverageParams(match_threshold=0.95, order_threshold=0.95)
    )
    assert strict.score == 1
    assert all("(none shares 95% of its content words)" in f.message for f in strict.findings)


def test_placeholders_and_aliases_are_params() -> None:
    text = research_item().replace("## Scope", "## Boundaries")
    assert [f.message for f in sp.check(parse_document(text)).findings] == [
        "missing required section ## Scope"
    ]
    params = validated(
        SectionPresenceParams,
        {
            "required": [{"title": "Scope", "aliases": ["Boundaries"]}, "Context"],
            "placeholders": ["Digests beat tags"],
        },
    )
    outcome = sp.check(parse_document(text), params)
    assert [f.message for f in outcome.findings] == []  # Analysis is not required here
    params = validated(
        SectionPresenceParams, {"required": ["Analysis"], "placeholders": ["Digests beat tags"]}
    )
    (finding,) = sp.check(parse_document(text), params).findings
    assert "still holds the template's placeholder text 'Digests beat tags'" in finding.message


def test_acronym_params_scope_understood_and_required() -> None:
    body = "## Context\n\nThe GPU is fast.\n\n## Analysis\n\nThe TPU is faster.\n"
    document = parse_document(body)
    assert {p.acronym for p in acronym_expansion.find_problems(document)} == {"GPU", "TPU"}
    only = acronym_expansion.check(document, AcronymExpansionParams(sections=("Analysis",)))
    assert [f.line for f in only.findings] == [7]
    understood = acronym_expansion.check(document, AcronymExpansionParams(understood=("GPU", "TPU")))
    assert understood.findings == () and understood.score == 5
    required = acronym_expansion.check(
        parse_document("A Graphics Pipeline Unit (GPU) ran.\n"),
        AcronymExpansionParams(required={"GPU": "Graphics Processing Unit"}),
    )
    assert 'the protocol requires "Graphics Processing Unit (GPU)"' in required.findings[0].message


def test_run_check_passes_params() -> None:
    result = run_check(
        "key_finding_word_count",
        parse_document(research_item()),
        params=KeyFindingWordCountParams(min_words=30),
    )
    assert result.score == 2 and len(result.findings) == len(FINDINGS)


@pytest.mark.parametrize(
    ("dimension_id", "params", "expected"),
    [
        (
            "key_finding_word_count",
            {"min_words": 0},
            "dimensions.2.params (dimension key_finding_word_count)",
        ),
        ("key_finding_word_count", {"min_wrods": 30}, "min_wrods: unknown key"),
        ("key_finding_word_count", {"min_findings": 9, "max_findings": 8}, "must not exceed max_findings"),
        ("evidence_map_coverage", {"match_threshold": 1.5}, "match_threshold: Input should be less than"),
        ("section_presence", {"required": [{"title": "A", "within": "B"}]}, "'A' is within 'B'"),
        ("acronym_expansion", {"required": {"GPU": ""}}, "'GPU' needs a non-empty"),
        ("acronym_expansion", {"expansions": {"GPU": "Graphics\nProcessing Unit"}}, "must be one line"),
        ("claim_source_accuracy", {"min_words": 3}, "'claim_source_accuracy' takes no params"),
        ("source_consultation", {"reasons": ["not *used"]}, "reasons: 'not *used': `*` may only end a word"),
        (
            "source_consultation",
            {"not_consulted_labels": [" "]},
            "not_consulted_labels: ' ': a phrase needs a word",
        ),
        ("source_consultation", {"reasons": "paywalled"}, "reasons: Input should be a list"),
        ("acronym_expansion", {"sections": "Findings"}, "sections: Input should be a list"),  # not "tuple"
        ("acronym_expansion", {"required": ["GPU"]}, "required: Input should be a mapping"),
        # a field's own rule is reported beside another field's error, not after it is fixed
        (
            "section_presence",
            {"required": [{"title": "A", "within": "B"}], "bogus": 1},
            "required: 'A' is within 'B', which is not listed before it; bogus: unknown key",
        ),
        (
            "acronym_expansion",
            {"expansions": {"GPU": " "}, "sections": 3},
            "expansions: 'GPU' needs a non-empty",
        ),
    ],
)
def test_bad_params_name_file_dimension_and_key(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    dimension_id: str,
    params: dict[str, Any],
    expected: str,
) -> None:
    data = _rubric_data()
    _dimension(data, dimension_id)["params"] = params
    path = tmp_path / "bad.yml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), "utf-8")
    with pytest.raises(RubricError) as err:
        load_rubric(str(path))
    assert str(path) in str(err.value) and expected in str(err.value)
    assert f"(dimension {dimension_id})" in str(err.value)
    (tmp_path / "item.md").write_text(research_item(), "utf-8")
    assert main(["check", str(tmp_path / "item.md"), "--rubric", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_schema_publishes_every_params_model(capsys: pytest.CaptureFixture[str]) -> None:
    schema = rubric_json_schema()
    for model in ("KeyFindingWordCountParams", "SectionPresenceParams", "EvidenceMapCoverageParams"):
        assert model in schema["$defs"]
    assert main(["schema", "rubric"]) == 0
    assert "AcronymExpansionParams" in json.loads(capsys.readouterr().out)["$defs"]


def test_a_check_module_that_cannot_be_imported_fails_its_check_alone(monkeypatch) -> None:
    """Check modules load the first time their check runs; one that fails to import is an error on
    its dimension, and the other checks still run."""
    from evalgate import checks
    from evalgate.document import parse_document

    monkeypatch.setitem(checks._MODULES, "section_presence", "no_such_check_module")
    checks._check.cache_clear()
    try:
        document = parse_document("# Title\n\nText.\n")
        broken = checks.run_check("section_presence", document)
        working = checks.run_check("key_finding_word_count", document)
    finally:
        checks._check.cache_clear()
    assert broken.status is Status.ERROR
    assert broken.error is not None and broken.error.startswith(
        "check section_presence failed: ModuleNotFoundError"
    )
    assert working.status is Status.SCORED
    assert checks.run_check("no_such_check", document).error == "no deterministic check named 'no_such_check'"


def test_every_check_with_params_has_its_type_and_the_union_names_each():
    """The research-review checks' types are made on first use: by id (`params_type`), by name as
    before they moved, and in the union pydantic validates and the JSON schema names."""
    from typing import get_args

    from evalgate.rubrics import params, review_params
    from evalgate.rubrics.params_base import CheckParams

    kinds = {check: params.params_type(check) for check in params.CHECKS_WITH_PARAMS}
    assert all(isinstance(k, type) and issubclass(k, CheckParams) for k in kinds.values())
    assert kinds["em_dashes"] is review_params.EmDashesParams is params.EmDashesParams
    assert kinds["section_presence"] is params.SectionPresenceParams
    assert params.params_type("executive_summary_first_sentence") is None
    assert set(get_args(params.any_params())) == set(kinds.values())
    with pytest.raises(AttributeError):
        params.NoSuchParams  # noqa: B018
