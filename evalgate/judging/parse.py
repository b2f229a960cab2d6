"""Judge reply -> per-dimension scores, evidence quotes and reasoning, plus the judge's OVERALL claim.

Tolerant of how real models write (bold scores, code fences around the table, extra columns, `4/5`,
`Score: 4`, a preamble, escaped pipes, titles for ids) and strict about meaning: a dimension that is
missing, given twice with different scores, non-numeric or off the scale is an error for *that*
dimension, never a pass. Nothing here raises on any input text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

ReplyFormat = Literal["table", "json"]
Overall = Literal["PASS", "FAIL"]


@dataclass(frozen=True)
class DimensionReply:
    """What a judge said about one dimension; `error` is set (and `score` None) when it is unusable."""

    id: str
    score: int | None
    evidence: tuple[str, ...] = ()
    reasoning: str = ""
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.error is None and self.score is not None


@dataclass(frozen=True)
class ParsedReply:
    """A parsed reply: one entry per requested dimension id, in the order requested."""

    dimensions: tuple[DimensionReply, ...]
    overall: Overall | None = None
    notes: tuple[str, ...] = ()  # problems not tied to one dimension (no table, unknown rows, ...)

    def get(self, dimension_id: str) -> DimensionReply:
        for d in self.dimensions:
            if d.id == dimension_id:
                return d
        raise KeyError(dimension_id)

    @property
    def complete(self) -> bool:
        """Every requested dimension has a usable score."""
        return all(d.valid for d in self.dimensions)

    @property
    def problems(self) -> tuple[str, ...]:
        """Human reasons the reply is not fully usable (for the repair prompt)."""
        return self.notes + tuple(f"{d.id}: {d.error}" for d in self.dimensions if d.error)


_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_MARKUP = re.compile(r"[*_`~]")
_ROW_NUMBER = re.compile(r"^\d+[.)]\s+")
_SCORE = re.compile(
    r"^(?:score\s*[:=]?\s*)?(?P<num>-?\d+(?:\.\d+)?)(?:\s*(?:/|out of)\s*(?P<den>\d+))?(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_RANGE_AFTER = re.compile(r"^\s*(?:-|–|—|to|or|,)\s*\d", re.IGNORECASE)
_OVERALL = re.compile(r"^overall(?:\s+verdict)?\s*[:=\-–—]\s*(pass|fail)\s*[.!]?\s*$", re.IGNORECASE)
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL = re.compile(r"^:?-+:?$")

_HEADER_ALIASES = {
    "dimension": ("dimension", "dimension id", "id", "criterion"),
    "score": ("score", "rating"),
    "evidence": ("evidence", "quote", "evidence quote", "verbatim quote"),
    "reasoning": ("reasoning", "reason", "rationale", "justification", "explanation"),
}


def _key(text: str) -> str:
    """Case, markup and punctuation-insensitive form used to match ids, titles and headers."""
    return " ".join(_NON_ALNUM.sub(" ", _MARKUP.sub(" ", text).lower()).split())


def parse_score(raw: object, scale: tuple[int, int] = (1, 5)) -> tuple[int | None, str | None]:
    """A score cell or JSON value -> (score, None) or (None, reason)."""
    lo, hi = scale
    if isinstance(raw, bool):  # bool is an int in Python; `true` is not a score
        return None, f"score {raw!r} is not a number"
    if isinstance(raw, int):
        value: float = raw
    elif isinstance(raw, float):
        value = raw
    elif isinstance(raw, str):
        cell = _MARKUP.sub("", raw).strip()
        match = _SCORE.match(cell)
        if not match or _RANGE_AFTER.match(match["rest"]):
            return None, f"score {raw.strip()[:40]!r} is not a single number"
        if match["den"] is not None and int(match["den"]) != hi:
            return None, f"score {cell[:40]!r} is not on the {lo}-{hi} scale"
        value = float(match["num"])
    else:
        return None, "score is missing"
    if value != int(value):
        return None, f"score {value:g} is not a whole number"
    if not lo <= int(value) <= hi:
        return None, f"score {int(value)} is outside {lo}-{hi}"
    return int(value), None


class _DimensionMatcher:
    """Maps what a judge wrote in the dimension cell to a requested id: the id itself in any case or
    punctuation, a leading id followed by more words, or the dimension's title when no other
    dimension shares it."""

    def __init__(self, ids: Sequence[str], titles: Mapping[str, str] | None):
        self.by_key: dict[str, str] = {_key(i): i for i in ids}
        title_owners: dict[str, list[str]] = {}
        for i, title in (titles or {}).items():
            if i in ids:
                title_owners.setdefault(_key(title), []).append(i)
        for k, owners in title_owners.items():
            if len(owners) == 1 and k not in self.by_key:
                self.by_key[k] = owners[0]

    def match(self, cell: str) -> str | None:
        k = _key(_ROW_NUMBER.sub("", cell.strip()))
        if k in self.by_key:
            return self.by_key[k]
        prefixed = [i for key, i in self.by_key.items() if k.startswith(key + " ")]
        return prefixed[0] if len(set(prefixed)) == 1 else None


def split_row(line: str) -> list[str]:
    """Cells of a markdown table row; `\\|` is a literal pipe inside a cell."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _UNESCAPED_PIPE.split(body)]


def split_quotes(cell: str) -> tuple[str, ...]:
    """Evidence quotes in a cell: each double-quoted passage, or the whole cell if none is quoted."""
    found = tuple(a or b for a, b in _QUOTED.findall(cell))
    if found:
        return tuple(q.strip() for q in found if q.strip())
    bare = cell.strip().strip("'\"“”")
    return (bare,) if bare and _key(bare) not in ("", "none", "n a") else ()


def _is_row(line: str) -> bool:
    return bool(_UNESCAPED_PIPE.search(line)) and len(split_row(line)) >= 2


def _rejoin_quoted(cells: list[str], width: int) -> list[str]:
    """Undo splits at pipes a judge forgot to escape inside a quote (an Evidence Map row, say): when a
    row has more cells than its header, a cell opening a quote it does not close takes the next cells
    until one closes it."""
    if len(cells) <= width:
        return cells
    joined: list[str] = []
    index = 0
    while index < len(cells):
        cell = cells[index]
        if cell[:1] in ('"', "“") and not _QUOTED.fullmatch(cell):
            end = index + 1
            while end < len(cells) and not cells[end].endswith(('"', "”")):
                end += 1
            if end < len(cells) and len(cells) - (end - index) >= width:
                cell = " | ".join(cells[index : end + 1])
                index = end
        joined.append(cell)
        index += 1
    return joined


def _header_columns(cells: Sequence[str]) -> dict[str, int] | None:
    columns: dict[str, int] = {}
    for index, cell in enumerate(cells):
        k = _key(cell)
        for name, aliases in _HEADER_ALIASES.items():
            if name not in columns and (k in aliases or k.split(" ")[0] in aliases):
                columns[name] = index
                break
    return columns if "dimension" in columns and "score" in columns else None


@dataclass
class _Collected:
    rows: dict[str, list[DimensionReply]]
    unknown: list[str]


def _parse_overall(text: str) -> Overall | None:
    verdict = _OVERALL.match(re.sub(r"[*_`#>]", "", text).strip())
    return None if verdict is None else "PASS" if verdict[1].upper() == "PASS" else "FAIL"


def _parse_table(
    text: str, matcher: _DimensionMatcher, scale: tuple[int, int]
) -> tuple[_Collected, int, bool]:
    lines = text.splitlines()
    header_at, columns, width = -1, None, 4
    for index, line in enumerate(lines):
        if _is_row(line):
            header = split_row(line)
            columns = _header_columns(header)
            if columns is not None:
                header_at, width = index, len(header)
                break
    if columns is None:
        # No header: accept rows whose first cell names a dimension, columns in the contract order.
        columns = {"dimension": 0, "score": 1, "evidence": 2, "reasoning": 3}
    collected = _Collected(rows={}, unknown=[])
    last_row = header_at
    for index in range(header_at + 1, len(lines)):
        line = lines[index]
        if not _is_row(line):
            if header_at >= 0 and line.strip() and not line.strip().startswith("```"):
                break  # the table has ended; a later table is not part of the reply's contract
            continue
        cells = _rejoin_quoted(split_row(line), width)
        if header_at >= 0:
            last_row = index
        if all(_SEPARATOR_CELL.match(c.replace(" ", "")) for c in cells if c):
            continue
        dim = matcher.match(cells[columns["dimension"]]) if columns["dimension"] < len(cells) else None
        if dim is None:
            if header_at >= 0:
                collected.unknown.append(cells[columns["dimension"]][:60] if cells else "")
            continue

        def cell(name: str, cells: list[str] = cells) -> str:
            at = columns.get(name)
            return cells[at] if at is not None and at < len(cells) else ""

        score, error = parse_score(cell("score"), scale)
        collected.rows.setdefault(dim, []).append(
            DimensionReply(dim, score, split_quotes(cell("evidence")), cell("reasoning"), error)
        )
        last_row = index
    return collected, last_row, header_at >= 0 or bool(collected.rows)


def _json_object(text: str) -> Any:
    fenced = re.search(r"```(?:json)?\s*\n(.*?)```", text, re.DOTALL | re.IGNORECASE)
    candidates = [fenced[1]] if fenced else []
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


def _parse_json(
    text: str, matcher: _DimensionMatcher, scale: tuple[int, int]
) -> tuple[_Collected, Any, bool]:
    obj = _json_object(text)
    collected = _Collected(rows={}, unknown=[])
    if not isinstance(obj, dict):
        return collected, None, False
    entries: list[tuple[str, Any]] = []
    dims = obj.get("dimensions", obj.get("scores"))
    if isinstance(dims, dict):
        entries = [(str(k), v) for k, v in dims.items()]
    elif isinstance(dims, list):
        entries = [(str(e.get("id", e.get("dimension", ""))), e) for e in dims if isinstance(e, dict)]
    else:  # dimension ids at the top level
        entries = [(str(k), v) for k, v in obj.items() if k.lower() != "overall"]
    for name, value in entries:
        dim = matcher.match(name)
        if dim is None:
            collected.unknown.append(name[:60])
            continue
        entry = value if isinstance(value, dict) else {"score": value}
        score, error = parse_score(entry.get("score"), scale)
        raw_evidence = entry.get("evidence", ())
        quotes = [raw_evidence] if isinstance(raw_evidence, str) else raw_evidence
        evidence = (
            tuple(q.strip() for q in quotes if isinstance(q, str) and q.strip())
            if isinstance(quotes, list | tuple)
            else ()
        )
        reasoning = entry.get("reasoning", "")
        collected.rows.setdefault(dim, []).append(
            DimensionReply(dim, score, evidence, reasoning if isinstance(reasoning, str) else "", error)
        )
    return collected, obj.get("overall"), True


def _resolve(dimension_id: str, rows: list[DimensionReply]) -> DimensionReply:
    if not rows:
        return DimensionReply(dimension_id, None, error="no score given for this dimension")
    first = rows[0]
    # A repeated row that says the same thing is harmless; one that disagrees leaves no score to use.
    if len({(r.score, r.error) for r in rows}) > 1:
        shown = ", ".join(str(r.score) if r.valid else "invalid" for r in rows)
        error = f"given {len(rows)} times with conflicting scores ({shown})"
        return DimensionReply(dimension_id, None, first.evidence, first.reasoning, error)
    return first


def parse_reply(
    text: str,
    dimension_ids: Sequence[str],
    reply_format: ReplyFormat = "table",
    *,
    titles: Mapping[str, str] | None = None,
    scale: tuple[int, int] = (1, 5),
) -> ParsedReply:
    """Parse a judge's reply for the requested dimensions; never raises.

    `titles` maps ids to dimension titles so a judge that wrote a title instead of the id is still
    understood (only when no two dimensions share the title).
    """
    matcher = _DimensionMatcher(dimension_ids, titles)
    notes: list[str] = []
    overall: Overall | None = None
    if reply_format == "json":
        collected, raw_overall, found = _parse_json(text, matcher, scale)
        if not found:
            notes.append("no JSON object found in the reply")
        if isinstance(raw_overall, str) and raw_overall.strip().upper() in ("PASS", "FAIL"):
            overall = "PASS" if raw_overall.strip().upper() == "PASS" else "FAIL"
    else:
        collected, last_row, found = _parse_table(text, matcher, scale)
        if not found:
            notes.append("no table with 'dimension' and 'score' columns found in the reply")
        # The claim counted is the first OVERALL line after the table. Before the table it is usually
        # the model restating our instructions; inside the table it sits in a quoted evidence cell, and
        # a document may well contain "OVERALL: PASS" to steer the gate. Only the contract position
        # (right after the table) is the judge's own claim.
        for line in text.splitlines()[last_row + 1 :] if found else ():
            overall = _parse_overall(line)
            if overall is not None:
                break
    if collected.unknown:
        notes.append(
            "rows for unknown dimensions ignored: " + ", ".join(repr(u) for u in collected.unknown[:5])
        )
    dims = tuple(_resolve(i, collected.rows.get(i, [])) for i in dimension_ids)
    return ParsedReply(dimensions=dims, overall=overall, notes=tuple(notes))
