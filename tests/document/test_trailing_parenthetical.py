"""`_strip_trailing_parenthetical` walks brackets back from the end with str.rfind; it gives what the
plain walk over every bracket of the claim gives."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.document.findings import _LABEL_WORDS, _strip_trailing_parenthetical, claim_of


def strip_by_walking_every_bracket(text: str) -> str:
    body = text.rstrip().rstrip(".").rstrip()
    last = body[-1:]
    if last not in (")", "]"):
        return text
    first = {")": "(", "]": "["}[last]
    depth = 0
    for at, ch in reversed(list(enumerate(body))):
        depth += (ch == last) - (ch == first)
        if depth == 0:  # the opener that balances the last bracket
            carries = re.search(rf"\b(?:{_LABEL_WORDS})\b|https?://", body[at:], re.I)
            return body[:at].rstrip() if carries else text
    return text


PIECES = st.sampled_from(
    ["(", ")", "[", "]", " ", ".", "a", "Claim", "fact", "High", "source:", "https://x.y", "x("]
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=16).map("".join))
@example("Claim (see [fact]) (high confidence).")
@example("Claim ((fact) x)")
@example("x(fact)")
@example("Claim. [inference; source: https://x.y]")
def test_the_backward_walk_is_the_plain_walk(text: str) -> None:
    assert _strip_trailing_parenthetical(text) == strip_by_walking_every_bracket(text)


def test_claims_lose_their_label_parenthetical() -> None:
    assert claim_of(
        "Agents cache (in memory) results. ([inference]; high confidence; source: https://x.y)"
    ) == ("Agents cache (in memory) results.")
    assert claim_of("Agents cache results (in memory).") == "Agents cache results (in memory)."
    assert claim_of("x(fact)") == "x"
