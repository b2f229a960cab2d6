"""Recorded judge replies: `replay:DIR` answers from files, `RecordingBackend` writes them.

A recording is `DIR/<sha256 of the prompt, hex>.json` with the reply's text, model and token counts.
Keying on the exact prompt means a changed rubric, template or document misses the recording
instead of silently reusing a reply to a different question.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from evalgate.judgement import Reply
from evalgate.judging.backends import Backend, BackendError


def prompt_hash(prompt: str) -> str:
    """The recording key of a prompt: sha256 of its UTF-8 bytes, hex."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


class ReplayBackend:
    """Answers each prompt with its recording; a missing one is an error naming the hash."""

    name = "replay"

    def __init__(self, directory: str | Path, *, model: str = "replay") -> None:
        self.directory = Path(directory)
        self.model = model

    def complete(self, prompt: str) -> Reply:
        """The recorded reply for this prompt (latency is the time to read it)."""
        started = time.perf_counter()
        key = prompt_hash(prompt)
        path = self.directory / f"{key}.json"
        try:
            record: Any = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BackendError(f"replay:{self.directory}: no recording for prompt sha256 {key}") from None
        except (OSError, ValueError) as error:
            reason = f"replay:{self.directory}: unreadable recording {path.name}: {error}"
            raise BackendError(reason) from None
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            raise BackendError(f"replay:{self.directory}: recording {path.name} has no text")
        return Reply(
            text=record["text"],
            model=str(record.get("model") or self.model),
            latency_ms=(time.perf_counter() - started) * 1000,
            tokens_in=record.get("tokens_in"),
            tokens_out=record.get("tokens_out"),
            cost_usd=record.get("cost_usd"),
        )


class RecordingBackend:
    """Passes prompts to `inner` and records each successful reply under `directory` for replay."""

    def __init__(self, inner: Backend, directory: str | Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.directory = Path(directory)

    def complete(self, prompt: str) -> Reply:
        """Call the inner backend and write its reply (errors are raised, not recorded)."""
        reply = self.inner.complete(prompt)
        record = {
            "text": reply.text,
            "model": reply.model,
            "tokens_in": reply.tokens_in,
            "tokens_out": reply.tokens_out,
            "cost_usd": reply.cost_usd,
            "backend": self.name,
        }
        self.directory.mkdir(parents=True, exist_ok=True)
        # Write then rename, so parallel judges and a killed run never leave half a recording.
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record, out, ensure_ascii=False, indent=1, sort_keys=True)
        os.replace(tmp, self.directory / f"{prompt_hash(prompt)}.json")
        return reply
