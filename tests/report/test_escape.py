"""Escaping untrusted text for workflow commands, markdown and size limits."""

from __future__ import annotations

from evalgate.report.escape import (
    ZERO_WIDTH_SPACE,
    command_message,
    command_property,
    markdown_cell,
    markdown_code,
    markdown_text,
    neutralise_mentions,
    plain_line,
    truncate_utf8,
)


def test_command_property_escapes_newline_colon_comma_and_percent() -> None:
    hostile = "a\n::error file=x::pwned,b%0A.md"
    escaped = command_property(hostile)
    assert "\n" not in escaped and "::" not in escaped and "," not in escaped
    assert escaped == "a%0A%3A%3Aerror file=x%3A%3Apwned%2Cb%250A.md"


def test_command_message_keeps_colons_but_encodes_line_breaks_and_percent() -> None:
    assert command_message("50% done\r\nnext: %0A") == "50%25 done%0D%0Anext: %250A"


def test_mentions_neutralised_but_email_kept() -> None:
    text = neutralise_mentions("ping @octocat and @org/team, mail a@b.org")
    assert f"@{ZERO_WIDTH_SPACE}octocat" in text and f"@{ZERO_WIDTH_SPACE}org/team" in text
    assert "a@b.org" in text


def test_markdown_cell_cannot_break_a_table_row_or_inject_html() -> None:
    cell = markdown_cell("x | y\n<img src=x onerror=alert(1)> [a](http://e) `code` @octocat")
    assert "\n" not in cell and "<img" not in cell and "](" not in cell.replace("\\](", "")
    assert "\\|" in cell and "&lt;img" in cell and "\\`code\\`" in cell
    assert "@octocat" not in cell


def test_markdown_code_survives_backticks_and_pipes() -> None:
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("`x") == "`` `x ``"
    assert markdown_code("p|q\nr", in_table=True) == "`p\\|q r`"
    assert markdown_code("p|q") == "`p|q`"


def test_markdown_text_is_one_line() -> None:
    assert markdown_text("a\n\n# heading\n- item") == "a # heading - item"


def test_plain_line_and_truncate_utf8() -> None:
    assert plain_line("x" * 200, 140) == "x" * 139 + "…"
    assert len(plain_line("x" * 200, 140)) == 140
    cut = truncate_utf8("é" * 10, 5)  # 2 bytes each: never split a character
    assert cut == "éé"
