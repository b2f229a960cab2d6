"""Every pattern run on document text is linear: each case feeds the code that runs a pattern which
backtracked (exponentially or quadratically) an input on which the old pattern takes minutes or never
finishes, and the new code must finish. Each runs in its own interpreter with a hard timeout of 60 s,
far above the well-under-a-second the linear code needs, so no machine is too slow for the test and
a regression hangs only its own case."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
N = 200_000  # characters: the quadratic patterns took about 2e10 steps here (minutes); now ~milliseconds

# (name, code run with `n` bound to N): each calls the code that applies the pattern as the run does
CASES = {
    # exponential in the number of cells: an 88-byte line never finished
    "section_presence empty map row": (
        "from evalgate.checks.section_presence import _EMPTY_MAP_ROW as p; p.match('|' + ' |' * 60 + 'x')"
    ),
    # the placeholder search's one class for white space and non-ASCII bytes, before a word that is
    # itself non-ASCII (`—`): greedy there, it split each run of em dashes every way
    "section_presence phrase search past a phrase's start": (
        "from evalgate.checks.section_placeholders import phrase_search as f\n"
        "from evalgate.checks.section_presence import _PLACEHOLDER_KEYS as k\n"
        "s = f(k); text = '[organisation title](https://url)' + ' \u2014' * n\n"
        "s.pattern.search(text.encode().translate(s.table))"
    ),
    "section_presence empty line": (
        "from evalgate.checks.section_presence import _EMPTY_LINE as p; p.match(' ' * n + 'x')"
    ),
    "heading with inner spaces": (
        "from evalgate.document.scan import atx_heading as f; f('# a' + ' ' * n + 'b')"
    ),
    "heading's closing hashes": (
        "from evalgate.document.scan import heading_title as f; f('a' + ' ' * n + 'b#')"
    ),
    "link in a heading": "from evalgate.document.scan import heading_title as f; f('](' + '[' * n)",
    "HTML block's tag alone on a line": (
        "from evalgate.document.html_blocks import html_start as f; f('<a' + ' b=c' * (n // 4) + ' =', False)"
    ),
    "code spans of a paragraph": (
        "from evalgate.document.html_blocks import code_spans as f; "
        "f(''.join('`' * k + 'x' for k in range(1, 600)) * 3)"
    ),
    "Key Finding with ]( and many [": (
        "from evalgate.checks.key_finding_word_count import claim_words as f; f('](' + '[' * n)"
    ),
    "Evidence Map delimiter row": (
        "from evalgate.document.blocks import _DELIMITER_ROW as p; p.match('|---' + ' ' * n + 'x')"
    ),
    "claim's leading label": (
        "from evalgate.document.findings import claim_of as f; f('[' + 'fact ' * (n // 5))"
    ),
    "claim's trailing label after spaces": (
        "from evalgate.document.findings import claim_of as f; f('a' + ' ' * n + 'b [fact]')"
    ),
    "claim's trailing label, many [label": (
        "from evalgate.document.findings import claim_of as f; f('[fact ' * (n // 6) + '] x ]')"
    ),
    "claim's Sources tail": (
        "from evalgate.document.findings import claim_of as f; f('Source: a' + ' ' * n + 'sourcex')"
    ),
    "source title link text": (
        "from evalgate.checks.acronym_expansion import _LINK_TEXT as p; list(p.finditer('[' * n))"
    ),
    "glossary (ABBR)": (
        "from evalgate.checks.glossary import _PAREN as p; list(p.finditer('(A' + 'B' * n + 'x'))"
    ),
    "acronym prose link target": "from evalgate.checks.acronym_prose import prose_line as f; f('](' * n)",
    "fix's heading in a container": (
        "from evalgate.fix.regions import _CONTAINER_HEADING as p; p.match('-  ' * 60 + 'x')"
    ),
    "inline comments and code spans": (
        "from evalgate.document import parse_document as f; f('# T\\n\\n' + '`<!--' * (n // 5) + '\\n')"
    ),
    # the research-review pack: quotations, source parts and sentences read once, wherever they are
    "review prose quotations": "from evalgate.checks.review_prose import blank_quotations as f; f('\"' * n)",
    "high-confidence source parts": (
        "from evalgate.checks.high_confidence_sources import independent_sources as f\n"
        "f('source: (' * (n // 9), {})"
    ),
    "wording checks on one long sentence": (
        "from evalgate.document import parse_document; from evalgate.checks import run_check\n"
        "text = '## Findings\\n\\n' + 'Furthermore; it is clearly so; I think ' * (n // 40) + '\\n'\n"
        "d = parse_document(text)\n"
        "[run_check(c, d) for c in ('formulaic_transitions', 'overconfident_language', 'opinion_labels')]"
    ),
    "em-dash fix on a line of em-dashes": (
        "from evalgate.fix.em_dashes import fix_em_dashes as f\n"
        "f('# T\\n\\n' + 'a — ' * (n // 4) + '\\n\\n' + 'x' * n + ' — y. ' * 40 + '\\n', None, [])"
    ),
    "a whole document of the above": (
        "from evalgate.document import parse_document; from evalgate.checks import registry\n"
        "d = parse_document('# a' + ' ' * n + 'b\\n\\n## Findings\\n\\n### Key Findings\\n\\n1. ](' + '[' * n"
        " + '\\n\\n### Evidence Map\\n\\n| a | b |\\n|---' + ' ' * n"
        " + 'x\\n\\n## Scope\\n\\n|' + ' |' * 60 + 'x\\n')\n"
        "[check(d, None) for check in registry().values()]"
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pattern_finishes_on_its_worst_input(name: str) -> None:
    code = f"n = {N}\n{CASES[name]}\nprint('done')\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT, check=False
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stderr[-2000:]
