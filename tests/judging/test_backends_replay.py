"""Recording and replaying judge replies, keyed by the prompt's sha256."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evalgate.judgement import Reply
from evalgate.judging.backends import BackendError
from evalgate.judging.backends.replay import RecordingBackend, ReplayBackend, prompt_hash


class ScriptedBackend:
    """A real backend (same interface) that answers from a dict and counts calls."""

    name = "scripted"
    model = "scripted-1"

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.calls = 0

    def complete(self, prompt: str) -> Reply:
        self.calls += 1
        if prompt not in self.answers:
            raise BackendError("scripted: no answer")
        return Reply(self.answers[prompt], self.model, 12.0, tokens_in=50, tokens_out=9, cost_usd=0.001)


def test_record_then_replay_byte_identical(tmp_path: Path) -> None:
    prompts = {"Judge A ✓": '{"score": 5, "evidence": ["naïve — “quoted”"]}\n', "Judge B": "  spaced  \n\n"}
    recorder = RecordingBackend(ScriptedBackend(prompts), tmp_path)
    recorded = [recorder.complete(p) for p in prompts]
    replay = ReplayBackend(tmp_path)
    for prompt, original in zip(prompts, recorded, strict=True):
        again = replay.complete(prompt)
        assert again.text.encode() == prompts[prompt].encode() == original.text.encode()
        assert (again.model, again.tokens_in, again.tokens_out) == ("scripted-1", 50, 9)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{prompt_hash(p)}.json" for p in prompts)


def test_hash_is_sha256_of_utf8() -> None:
    assert prompt_hash("é") == hashlib.sha256("é".encode()).hexdigest()


def test_missing_recording_names_the_hash(tmp_path: Path) -> None:
    with pytest.raises(BackendError) as caught:
        ReplayBackend(tmp_path).complete("never recorded")
    assert prompt_hash("never recorded") in str(caught.value)


def test_errors_are_not_recorded(tmp_path: Path) -> None:
    recorder = RecordingBackend(ScriptedBackend({}), tmp_path / "rec")
    with pytest.raises(BackendError):
        recorder.complete("unknown")
    assert not (tmp_path / "rec").exists()


def test_corrupt_recording_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / f"{prompt_hash('p')}.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(BackendError, match="unreadable recording"):
        ReplayBackend(tmp_path).complete("p")
    (tmp_path / f"{prompt_hash('q')}.json").write_text(json.dumps({"model": "m"}), encoding="utf-8")
    with pytest.raises(BackendError, match="has no text"):
        ReplayBackend(tmp_path).complete("q")


def test_in_a_sandbox_tree_a_replay_directory_is_read_from_the_tree(tmp_path: Path) -> None:
    from evalgate.judging.backends.process import JudgeSandbox
    from evalgate.judging.backends.registry import make_backend

    workspace, tree = tmp_path / "workspace", tmp_path / "tree"
    for root, text in ((workspace, "the pull request's"), (tree, "the base's")):
        (root / "recordings").mkdir(parents=True)
        record = {"text": text, "model": "m"}
        (root / "recordings" / f"{prompt_hash('p')}.json").write_text(json.dumps(record), encoding="utf-8")
    sandbox = JudgeSandbox(tree=tree, workspace=workspace)
    for spec in ("replay:recordings", f"replay:{workspace}/recordings"):
        assert make_backend(spec, sandbox=sandbox).complete("p").text == "the base's", spec
