"""A small research item for the research-review checks, written for the tests: every template
header, clean prose, two high-confidence Key Findings each citing two organisations. A test swaps in
the text of one part to make the case it needs."""

from __future__ import annotations

from evalgate.document import Document, parse_document

CLEAN = {
    "Research Question": "Which cache policy keeps build artefacts available for release jobs?",
    "Scope": "**In scope:**\n- eviction rules for shared build caches",
    "Context": "Release jobs fail when the shared cache evicts the artefacts they need.",
    "Approach": "1. Read the cache vendors' documentation.\n2. Compare eviction rules.",
    "Sources": (
        "- [x] [Cache guide](https://cache.example.org/guide)\n"
        "- [x] [Eviction study](https://lab.example.net/eviction)"
    ),
    "§0 Initialise": "Question: which eviction rule protects release artefacts.",
    "§1 Question Decomposition": "- Which rules exist?\n- Which fail release jobs?",
    "§2 Investigation": (
        "- [fact] Least-recently-used eviction drops artefacts untouched for a week. "
        "[source: https://cache.example.org/guide]"
    ),
    "§3 Reasoning": "- [inference] Pinning release artefacts avoids the failure. [source: https://lab.example.net/eviction]",
    "§4 Consistency Check": "No contradictions between the two sources.",
    "§5 Depth and Breadth Expansion": "- [inference] Storage cost rises by the pinned share only.",
    "§6 Synthesis": "Pin release artefacts and evict the rest by age.",
    "§7 Recursive Review": "review_result: pass",
    "Executive Summary": (
        "Pinning release artefacts keeps them available while age-based eviction bounds the cache. "
        "[inference; source: https://lab.example.net/eviction]"
    ),
    "Key Findings": (
        "1. Least-recently-used eviction removes release artefacts that no job has read for a week, "
        "which is why the release job fails on Tuesdays. ([fact]; high confidence; source: "
        "https://cache.example.org/guide; https://lab.example.net/eviction)\n"
        "2. Pinning the artefacts a release needs removes the failure while the rest of the cache "
        "keeps its age-based eviction unchanged. ([inference]; high confidence; source: "
        "https://cache.example.org/pinning; https://lab.example.net/pinning)"
    ),
    "Evidence Map": (
        "| Claim | Source | Confidence | Notes |\n|---|---|---|---|\n"
        "| [fact] Least-recently-used eviction removes unread release artefacts. "
        "| https://cache.example.org/guide | high | vendor |\n"
        "| [inference] Pinning removes the failure. | https://lab.example.net/pinning | high | study |"
    ),
    "Assumptions": "[assumption] Release jobs read the same artefacts each week. [source: https://lab.example.net/eviction]",
    "Analysis": "Pinning costs storage but the study measures the share as small. [inference; source: https://lab.example.net/eviction]",
    "Risks, Gaps, and Uncertainties": "- Only one vendor's cache was examined.",
    "Open Questions": "- Does pinning interact with cache sharding?",
}
TOP = ["Research Question", "Scope", "Context", "Approach", "Sources"]
SKILL = [k for k in CLEAN if k.startswith("§")]
FINDINGS = [
    "Executive Summary",
    "Key Findings",
    "Evidence Map",
    "Assumptions",
    "Analysis",
    "Risks, Gaps, and Uncertainties",
    "Open Questions",
]


def review_item(front: str = 'title: "Cache eviction"\nstatus: reviewing', **parts: str) -> str:
    """The item's markdown; a keyword (a part's title, spaces as `_`, or `**{"§2 Investigation": ...}`)
    replaces that part's text."""
    body = dict(CLEAN)
    for key, text in parts.items():
        name = key if key in body else next(k for k in body if k.replace(" ", "_").replace(",", "") == key)
        body[name] = text
    out = ["---", front, "---", "", "# Cache eviction", ""]
    out += [line for name in TOP for line in (f"## {name}", "", body[name], "")]
    out += ["## Research Skill Output", ""]
    out += [line for name in SKILL for line in (f"### {name}", "", body[name], "")]
    out += ["## Findings", ""]
    out += [line for name in FINDINGS for line in (f"### {name}", "", body[name], "")]
    out += ["## Output", "", "- Type: knowledge", ""]
    return "\n".join(out)


def review_document(**parts: str) -> Document:
    return parse_document(review_item(**parts), "item.md")


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing needle."""
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)
