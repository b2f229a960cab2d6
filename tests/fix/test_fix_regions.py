"""Hand-made documents: uses the acronym check reads as prose but `evalgate fix` must not write (code
and headings inside block quotes and list items, setext heading text, multi-line code spans, HTML,
`<...>` link targets, link titles, reference labels, footnotes, reference definitions' titles) are
left for the author with the reason; a read-only file is an error naming it."""

from __future__ import annotations

import pytest

from evalgate.fix.command import fix_bytes

INTRO = "Intro prose here.\n\n"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("> ```\n> GPU in a quoted fence\n> ```\n", "inside a code block in a block quote"),
        ("> # GPU quoted heading\n", "first used in a heading"),
        ("- # GPU heading in an item\n", "first used in a heading"),
        ("The GPU and\nthe TPU story\n=====\n", "first used in a heading"),
        ("- item\n\n        GPU code in an item\n", "inside indented code"),
        ("\tGPU code indented by a tab\n", "inside indented code"),
        ("Use `multi\nGPU` span.\n", "inside a code span"),
        ("Use <code>GPU</code> here.\n", "inside HTML code"),
        ("See [the guide](\n/docs/x.md?GPU=1) now.\n", "inside a link's target or title"),
        ("See [the guide](/docs/x.md\n'GPU title') now.\n", "inside a link's target or title"),
        ("A <span\ntitle='GPU'>x</span> here.\n", "inside an HTML tag"),
        ("<div>\nGPU in a div\n</div>\n", "inside an HTML block"),
        ("<pre>\nfirst\n\nGPU after a blank line\n</pre>\n", "inside an HTML block"),
        ("<img\n  alt='GPU chip'\n  src='x.png'>\n", "inside an HTML block"),
        ("See [a](<https://x.org/a b GPU>) now.\n", "inside <...>"),
        ("See [a](https://x.org (GPU title)) now.\n", "inside a link's target or title"),
        ("See [the docs][GPU] now.\n\n[GPU]: https://x.org\n", "inside [...]"),
        ("See [GPU][] now.\n\n[GPU]: https://x.org\n", "inside [...]"),
        ("Fast chips[^GPU] win.\n\n[^GPU]: a note.\n", "inside [...]"),
        # (a one-line definition with its title on the next line is hidden from the checks as from
        # readers: tests/document/test_readers_view.py)
        ("[a]:\n  https://x.org/x\n  'GPU title'\n\nSee [a].\n", "part of a reference definition"),
    ],
)
def test_a_use_outside_prose_is_left_with_the_reason(body: str, why: str) -> None:
    raw = (INTRO + body).encode("utf-8")
    new, result = fix_bytes(raw, None, [])
    assert new == raw
    assert result.fixed == []
    assert any(why in w for p, w in result.left if p.acronym in ("GPU", "TPU")), result.left


def test_prose_beside_those_regions_is_still_fixed() -> None:
    raw = (
        INTRO + "A [guide](https://x.org/y) for the GPU and a TPU.\n\n<div>\nx\n</div>\n\nThe CPU.\n"
    ).encode()
    new, _ = fix_bytes(raw, None, [])
    assert (
        new
        == (
            INTRO
            + "A [guide](https://x.org/y) for the Graphics Processing Unit (GPU) and a Tensor Processing"
            " Unit (TPU).\n\n<div>\nx\n</div>\n\nThe Central Processing Unit (CPU).\n"
        ).encode()
    )


def test_plain_bracketed_text_is_prose_and_a_link_text_is_left() -> None:
    """A link's text is a cited title or a name (issue #25): left for the author, inline or by
    reference; a bracketed label such as `[fact: ...]` or `[CPU]` without a definition is prose."""
    raw = (
        INTRO + "[fact: the GPU is fast] and [a TPU story][ref] and [CPU].\n\n[ref]: https://x.org\n"
    ).encode()
    new, result = fix_bytes(raw, None, [])
    assert (
        new
        == (
            INTRO + "[fact: the Graphics Processing Unit (GPU) is fast] and "
            "[a TPU story][ref] and [Central Processing Unit (CPU)].\n\n"
            "[ref]: https://x.org\n"
        ).encode()
    )
    assert [(p.acronym, why) for p, why in result.left] == [
        ("TPU", "inside a link's text (a cited title or a name)")
    ]
