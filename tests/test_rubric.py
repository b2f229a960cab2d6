"""Rubrics are data: validated, versioned by content, errors name the key and the file."""

from __future__ import annotations

import pytest
import yaml

from evalgate.rubric import RubricError, load_rubric, pack_names, rubric_json_schema


def test_research_loop_has_nine_dimensions_and_policy():
    r = load_rubric("research-loop")
    assert len(r.dimensions) == 9
    assert {d.id for d in r.deterministic} == {
        "section_presence",
        "evidence_map_coverage",
        "key_finding_word_count",
        "source_consultation",
        "acronym_expansion",
    }
    assert {d.id for d in r.judged} == {
        "executive_summary_first_sentence",
        "claim_source_accuracy",
        "epistemic_labeling",
        "key_finding_specificity",
    }
    assert {d.id for d in r.dimensions if d.hard_fail} == {
        "acronym_expansion",
        "executive_summary_first_sentence",
        "evidence_map_coverage",
    }
    assert (r.policy.fail_on_score, r.policy.min_each, r.policy.min_mean) == (1, 3, 4.0)
    for d in r.dimensions:
        assert sorted(d.anchors) == [1, 2, 3, 4, 5], d.id


def test_version_is_a_content_hash(tmp_path):
    text = (pack_text := load_rubric("research-loop").as_data())
    p = tmp_path / "r.yml"
    p.write_text(yaml.safe_dump(text))
    same = load_rubric(str(p))
    assert same.version == load_rubric("research-loop").version
    pack_text["policy"]["min_mean"] = 3.5
    p.write_text(yaml.safe_dump(pack_text))
    assert load_rubric(str(p)).version != same.version


def test_unknown_key_names_key_and_file(tmp_path):
    data = load_rubric("research-loop").as_data()
    data["dimensions"][2]["hardfail"] = True
    p = tmp_path / "typo.yml"
    p.write_text(yaml.safe_dump(data))
    with pytest.raises(RubricError) as err:
        load_rubric(str(p))
    assert "typo.yml" in str(err.value)
    assert "dimensions.2.hardfail" in str(err.value)


def test_anchor_outside_scale_is_rejected(tmp_path):
    data = load_rubric("research-loop").as_data()
    data["dimensions"][0]["anchors"][7] = "too high"
    p = tmp_path / "bad.yml"
    p.write_text(yaml.safe_dump(data))
    with pytest.raises(RubricError, match="outside the scale"):
        load_rubric(str(p))


def test_unknown_pack_lists_packs():
    with pytest.raises(RubricError) as err:
        load_rubric("nope")
    assert "research-loop" in str(err.value)
    assert "research-loop" in pack_names()


def test_broken_yaml_is_a_clear_error(tmp_path):
    p = tmp_path / "broken.yml"
    p.write_text("id: [unclosed\n")
    with pytest.raises(RubricError, match=r"broken\.yml: not valid YAML"):
        load_rubric(str(p))


def test_schema_is_published():
    schema = rubric_json_schema()
    assert "dimensions" in schema["properties"]
