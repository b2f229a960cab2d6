"""`evalgate fix` over generated markdown: prose with acronyms mixed with code spans, fences, indented
code, links, reference labels, footnotes, URLs, tables, headings, HTML, block quotes, front matter, a
BOM and LF/CRLF endings, parentheses, compounds, link texts, quotations and italics, with the shipped
data or a glossary whose expansions hold markup. Whatever the document, the fix only inserts (every
old byte is kept, in order, but the "n" of an article it sets to "a"), keeps the line count, each
line's ending and the BOM, never touches a protected line or snippet, changes nothing on a second
run, and leaves `check` with no acronym finding that had a suggestion unless the fix said why, and
every other dimension exactly as it was."""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from evalgate.checks import run_check
from evalgate.checks.acronym_expansion import find_problems
from evalgate.checks.acronym_table import with_params
from evalgate.config import load_config
from evalgate.document import normalise_text, parse_document
from evalgate.fix.command import fix_bytes, fix_plan
from evalgate.rubric import load_rubric
from evalgate.rubrics.params import AcronymExpansionParams

_PARAMS, _OTHERS = fix_plan(load_rubric("research-loop"), load_config(None, required=False))
assert _PARAMS is not None
# A glossary whose expansions spell their acronyms but hold markup the check does not read as prose.
_MARKUP = replace(_PARAMS, expansions={"QZX": "Quick `Zany` Xylophone", "QZY": "Quick | Zany Yak"})
_ACRONYMS = ["GPU", "TPU", "CPU", "LLM", "LLMs", "NPU", "QZX", "QZY", "RAM", "API"]
_WORDS = ["the", "model", "runs", "fast", "and", "a", "an", "chip", "on", "data", "Later"]

# Snippets that must come out byte for byte, each on a prose line.
_INLINE = [
    "`GPU code`",
    "``a ` TPU``",
    "https://x.org/GPU/TPU",
    "<https://x.org/CPU>",
    "[guide](https://x.org/NPU)",
    "[a](<https://x.org/a b LLM>)",
    "[a](https://x.org (RAM title))",
    "[text][GPU]",
    "[TPU][]",
    "[^CPU]",
    "<code>NPU</code>",
    '<span title="LLM">x</span>',
    # never edited (issue #25): inside a parenthesis, a compound, a link's text, a quotation, italics
    "(GPU, TPU list)",
    "JSON-RPC",
    "CPU/NPU",
    "[the RAM guide](https://x.org/r)",
    '"A GPU Title"',
    "*Advances in TPU Design*",
]
# Blocks whose every line must come out unchanged (a leading blank line keeps each a block).
_BLOCKS = [
    "# GPU heading",
    "## The TPU and CPU",
    "The NPU and\nthe RAM story\n=====",
    "```\nGPU in a fence\n```",
    "~~~python\nTPU = 1\n~~~",
    "    CPU in indented code",
    "\tLLM in tab-indented code",
    "- item\n\n        GPU code in an item\n\nThe list ends.",  # (an indented block after it is code)
    "> ```\n> TPU in a quoted fence\n> ```",
    "> # CPU quoted heading",
    "<div>\nNPU in an HTML block\n</div>",
    "<pre>\nRAM in pre\n\nLLM still in pre\n</pre>",
    "[ref]: https://x.org/GPU\n  'TPU title'",
    "Use `multi\nCPU` span.",
    "See [the guide](\n/docs/x.md?GPU=1) now.",
    'A <span\ntitle="TPU">x</span> here.',
]
_FRONT = "---\ntitle: GPU notes\ntags: [TPU]\n---"

_word = st.sampled_from(_WORDS + _ACRONYMS)
_prose = st.lists(st.one_of(_word, st.sampled_from(_INLINE)), min_size=1, max_size=10).map(" ".join)
_table = st.lists(_word, min_size=2, max_size=2).map(lambda c: f"| a | b |\n|---|---|\n| {c[0]} | {c[1]} |")
_block = st.one_of(_prose, _prose, _table, st.sampled_from(_BLOCKS).map(lambda b: "\n" + b))


@st.composite
def documents(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """(the file's bytes, the protected blocks it holds)"""
    blocks = draw(st.lists(_block, min_size=1, max_size=8))
    front = draw(st.booleans())
    text = "\n\n".join(([_FRONT] if front else []) + blocks)
    endings = draw(st.sampled_from(["lf", "crlf", "mixed"]))
    lines = text.split("\n")
    if endings == "crlf":
        lines = [line + "\r" for line in lines[:-1]] + lines[-1:]
    elif endings == "mixed":
        lines = [line + ("\r" if draw(st.booleans()) else "") for line in lines[:-1]] + lines[-1:]
    raw = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")
    bom = "\ufeff" if draw(st.booleans()) else ""
    return (bom + raw).encode("utf-8"), [b for b in _BLOCKS if b in text] + ([_FRONT] if front else [])


_ARTICLE_AN = re.compile(rb"\b([Aa])n\b")


def _kept_in_order(old: bytes, new: bytes) -> bool:
    """Whether `old` is a subsequence of `new` (new = old with text inserted), an article's "an"
    read as "a" in both (fix sets the article before what it inserts: "an LLM" -> "a Large ...")."""
    old, new = _ARTICLE_AN.sub(rb"\1", old), _ARTICLE_AN.sub(rb"\1", new)
    rest = iter(new)
    return all(byte in rest for byte in old)


_MD = MarkdownIt("commonmark").enable("table")


def _not_prose(text: str) -> list[str]:
    """What a CommonMark parser (markdown-it-py, an oracle independent of evalgate's masking) finds
    that a fix must not change: code blocks and spans, HTML, headings' text, links' and images'
    targets and titles (a broken reference label drops its link, so that shows here too)."""
    found = []
    tokens = _MD.parse(text)
    for i, token in enumerate(tokens):
        if token.type in ("fence", "code_block", "html_block"):
            found.append(f"{token.type}:{token.content}")
        elif token.type == "heading_open":
            found.append(f"heading:{tokens[i + 1].content}")
        for child in token.children or ():
            if child.type in ("code_inline", "html_inline"):
                found.append(f"{child.type}:{child.content}")
            elif child.type in ("link_open", "image"):
                target = child.attrs.get("href", child.attrs.get("src"))
                found.append(f"{child.type}:{target}:{child.attrs.get('title')}")
    return sorted(found)


def _others(text: str) -> list[tuple[object, ...]]:
    document = parse_document(text)
    return [(r.score, r.findings) for r in (run_check(d, document, params=p) for d, p in _OTHERS)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from([_PARAMS, _MARKUP]))
def test_fix_invariants(doc: tuple[bytes, list[str]], params: AcronymExpansionParams) -> None:
    raw, blocks = doc
    new, result = fix_bytes(raw, params, _OTHERS)
    old_lines, new_lines = raw.split(b"\n"), new.split(b"\n")
    assert len(new_lines) == len(old_lines)
    assert new.startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
    for old, fixed in zip(old_lines, new_lines, strict=True):
        assert old.endswith(b"\r") == fixed.endswith(b"\r")
        assert _kept_in_order(old, fixed), (old, fixed)  # only insertions: every old byte, in order
    old_text, new_text = normalise_text(raw.decode("utf-8")), normalise_text(new.decode("utf-8"))
    for block in blocks:  # code, headings, HTML, quoted fences, reference definitions, front matter
        assert new_text.count(block) == old_text.count(block), block
    for snippet in _INLINE:  # code spans, URLs, autolinks, link targets and labels, footnotes, HTML
        assert new_text.count(snippet) == old_text.count(snippet), snippet
    assert _not_prose(new_text) == _not_prose(old_text)
    assert fix_bytes(new, params, _OTHERS)[0] == new  # a second run changes nothing
    assert _others(new_text) == _others(old_text)  # no other dimension moves
    left = {(p.acronym, p.line) for p, _ in result.left}
    table = with_params(params)
    for problem in find_problems(parse_document(new_text), table):
        if problem.suggestion is not None:
            assert (problem.acronym, problem.line) in left, problem.message  # left, and said why
