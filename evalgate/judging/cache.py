"""On-disk cache of judge replies, so an unchanged document is not judged (and paid for) twice.

The key covers everything that can change a reply: the document's bytes, the rubric version, the
template hash and the full prompt's hash, the backend and model, the seed and the reply format. An entry
is one JSON file written atomically (temporary file + `os.replace`), so a crash or a concurrent writer
never leaves half an entry; an entry that cannot be read or does not validate is a miss, never a crash.
Only replies that parsed completely are stored (the caller decides), so a bad reply is asked again.
`--no-cache` means: pass no cache (None) to the judge.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from evalgate.judgement import Reply

DEFAULT_CACHE_DIR = Path(".evalgate-cache")
ENTRY_FORMAT = 1


@dataclass(frozen=True)
class CacheKey:
    """The inputs a judge reply depends on; `digest` is the file name."""

    document_sha256: str
    rubric_version: str
    template_sha256: str
    prompt_sha256: str
    backend: str
    model: str
    seed: int
    reply_format: str

    @property
    def digest(self) -> str:
        canonical = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def document_sha256(text: str) -> str:
    """Hash of a document's (normalised) text as UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _reply_from_json(raw: Any) -> Reply | None:
    if not isinstance(raw, dict):
        return None
    text, model, latency = raw.get("text"), raw.get("model"), raw.get("latency_ms")
    if not isinstance(text, str) or not isinstance(model, str) or not isinstance(latency, int | float):
        return None
    tokens_in, tokens_out, cost = raw.get("tokens_in"), raw.get("tokens_out"), raw.get("cost_usd")
    if not all(v is None or isinstance(v, int) for v in (tokens_in, tokens_out)):
        return None
    if cost is not None and not isinstance(cost, int | float):
        return None
    return Reply(text, model, float(latency), tokens_in, tokens_out, None if cost is None else float(cost))


class JudgeCache:
    """A directory of cached replies, sharded by the first two hex digits of the key."""

    def __init__(self, directory: Path | str = DEFAULT_CACHE_DIR):
        self.directory = Path(directory)

    def path_for(self, key: CacheKey) -> Path:
        digest = key.digest
        return self.directory / digest[:2] / f"{digest}.json"

    def get(self, key: CacheKey) -> Reply | None:
        """The stored reply for `key`, or None when absent, unreadable, corrupt or for another key."""
        try:
            raw = json.loads(self.path_for(key).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if not isinstance(raw, dict) or raw.get("format") != ENTRY_FORMAT or raw.get("key") != asdict(key):
            return None
        return _reply_from_json(raw.get("reply"))

    def put(self, key: CacheKey, reply: Reply) -> bool:
        """Store `reply` atomically; False (not an exception) when the directory is not writable, since
        a cache that cannot be written only costs a repeated call."""
        path = self.path_for(key)
        entry = {"format": ENTRY_FORMAT, "key": asdict(key), "reply": asdict(reply)}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(entry, handle, ensure_ascii=False)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return False
        return True


def open_cache(directory: Path | str | None = None, *, enabled: bool = True) -> JudgeCache | None:
    """The cache the run should use: None under `--no-cache`, else the directory (default
    `.evalgate-cache/`). Creating nothing yet: the directory appears with the first stored reply."""
    if not enabled:
        return None
    return JudgeCache(DEFAULT_CACHE_DIR if directory is None else directory)
