"""A small, complete research item written for the tests (corpus-like, not copied from it)."""

from __future__ import annotations

FINDINGS = [
    "Content-addressed digests identify a compiled policy bundle exactly, so two deployment stages "
    "that report the same digest are evaluating byte-identical rules and data.",
    "Mutable tags such as latest or release names cannot prove equality because a registry may "
    "move a tag to a different artefact at any time without notice.",
    "Signing the digest with a release key lets the admission controller reject bundles that were "
    "rebuilt or altered after review, closing the tampering window between stages.",
    "Promotion gates should compare the digest carried by the asset with the approved digest and "
    "fail closed on mismatch, because silent drift is otherwise undetectable later.",
    "Asynchronous synchronisation is acceptable for advisory feedback in development but not for "
    "production admission where stale policy would allow actions the owner has revoked.",
    "Recording the evaluated digest in every decision log entry allows auditors to reconstruct which "
    "policy version governed each decision months after the event happened.",
]
ROWS = [
    "[fact] Digests identify a compiled bundle exactly across deployment stages.",
    "[fact] Mutable tags can move to a different artefact in a registry.",
    "[inference] Signed digests let admission reject rebuilt or altered bundles.",
    "[inference] Promotion gates compare carried and approved digests, failing closed.",
    "[inference] Async sync suits development feedback, not production admission.",
    "[inference] Decision logs with the evaluated digest let auditors reconstruct policy version.",
]
URLS = [f"https://example.org/ref/{i}" for i in range(1, 7)]


def research_item(
    *,
    findings: list[str] | None = None,
    rows: list[str] | None = None,
    boxes: list[str] | None = None,
    drop_section: str | None = None,
    marker: str = ".",
) -> str:
    """Markdown text of a complete item; the keyword arguments make the damaged variants."""
    findings = FINDINGS if findings is None else findings
    rows = ROWS if rows is None else rows
    boxes = boxes or ["x"] * len(URLS)
    sources = "\n".join(
        f"- [{b}] [Reference {i}]({u}) — what it shows"
        for i, (b, u) in enumerate(zip(boxes, URLS, strict=True))
    )
    cites = " ".join(URLS)
    kf = "\n".join(
        f"{n}{marker} {claim} ([inference]; medium confidence; source: {URLS[(n - 1) % 6]})"
        for n, claim in enumerate(findings, start=1)
    )
    table = "\n".join(f"| {row} | {URLS[i % 6]} | medium | note |" for i, row in enumerate(rows))
    parts = {
        "Research Question": "How can a deployment pipeline prove two stages evaluate identical policy?",
        "Scope": "**In scope:**\n- digest-based equality\n\n**Out of scope:**\n- policy authoring",
        "Context": "Policy drift between stages causes silent enforcement gaps.",
        "Approach": "1. Survey content addressing.\n2. Compare admission controls.",
        "Sources": sources,
    }
    skill = {
        f"§{i} {name}": f"- [fact; source: {URLS[i % 6]}] Step {i} notes on the investigation."
        for i, name in enumerate(
            [
                "Initialise",
                "Question Decomposition",
                "Investigation",
                "Reasoning",
                "Consistency Check",
                "Depth and Breadth Expansion",
                "Synthesis",
                "Recursive Review",
            ]
        )
    }
    findings_parts = {
        "Executive Summary": "Digest equality is the only reliable proof of identical policy. It is cheap.",
        "Key Findings": kf,
        "Evidence Map": "| Claim | Source | Confidence | Notes |\n|---|---|---|---|\n" + table,
        "Assumptions": "Registries keep digests immutable. [assumption; source: https://example.org/ref/1]",
        "Analysis": f"Digests beat tags on every criterion weighed. Cited: {cites}",
        "Risks, Gaps, and Uncertainties": "- Key rotation was not examined.",
        "Open Questions": "- How should digests be shared across organisations?",
    }
    out = [
        "---",
        'title: "Policy digest equality"',
        "status: completed",
        "---",
        "",
        "# Policy digest equality",
        "",
    ]
    for name, body in parts.items():
        if name != drop_section:
            out += [f"## {name}", "", body, ""]
    if drop_section != "Research Skill Output":
        out += ["## Research Skill Output", ""]
        for name, body in skill.items():
            if name != drop_section:
                out += [f"### {name}", "", body, ""]
    if drop_section != "Findings":
        out += ["## Findings", "", "*(Populated from §6 Synthesis above.)*", ""]
        for name, body in findings_parts.items():
            if name != drop_section:
                out += [f"### {name}", "", body, ""]
    if drop_section != "Output":
        out += ["## Output", "", "- Type: knowledge", "- Description: a digest-equality design.", ""]
    return "\n".join(out)


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing needle."""
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)
