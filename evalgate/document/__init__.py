"""Stage 1, the document: a markdown file on disk -> a `Document` every later stage reads.

Takes a path (or text); gives a frozen `Document` with front matter, a section tree with 1-based line
spans, lists, tables and the Findings part (Executive Summary, Key Findings, Evidence Map, Sources),
or a `DocumentError` whose message names the file. Nothing here knows of checks, judges or reports.

- `model`: the types, depending on nothing of the parsers;
- `scan`: one line scan for headings and code blocks; `blocks`: lists and tables of a region (a
  plain-list fast path, markdown-it-py's block parse, pipe tables); `findings`: the Findings part;
- `prose`: white space made single and sentence ends (the model's lazy Executive Summary uses it);
- `reader`: reading a file and composing the parsers (the only module that imports them all);
- `hidden`: what a reader never sees (HTML comments, link reference definitions) and what a judge
  is shown instead; `disguise`: invisible characters and look-alike letters inside words;
- `items`: structured input items (YAML with named parts) for rubrics that judge no markdown;
- `asciifold`: accent folding for title and name matching.
"""

from evalgate.document.hidden import shown
from evalgate.document.model import (
    DisguisedToken,
    Document,
    DocumentError,
    EvidenceRow,
    ExecutiveSummary,
    FrontMatter,
    HiddenSpan,
    KeyFinding,
    ListItem,
    Section,
    SourceEntry,
    Table,
    TableRow,
    normalise_title,
)
from evalgate.document.reader import (
    MAX_BYTES,
    front_matter_warning,
    normalise_text,
    parse_document,
    read_document,
    read_front_matter,
    split_lines,
)

__all__ = [
    "MAX_BYTES",
    "DisguisedToken",
    "Document",
    "DocumentError",
    "EvidenceRow",
    "ExecutiveSummary",
    "FrontMatter",
    "HiddenSpan",
    "KeyFinding",
    "ListItem",
    "Section",
    "SourceEntry",
    "Table",
    "TableRow",
    "front_matter_warning",
    "normalise_text",
    "normalise_title",
    "parse_document",
    "read_document",
    "read_front_matter",
    "shown",
    "split_lines",
]
