"""The acronym check's fast searches give exactly what their plain forms give: the long-form matcher
walking back with `str.rfind` and looking for stops among the last words only, the sibling-label
search that starts from the stem, the token regex and the search that tries it only where a match can
start, HTML comments found from each `<`, and a citation's initials found from its year."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.checks.acronym_expansion import _REVERSED_TAIL, load_table
from evalgate.checks.acronym_forms import LONG_FORM_STOP, acronym_letters, long_form_before, spells_at
from evalgate.checks.acronym_labels import (
    _ROMAN,
    _SURNAME,
    _expanded_somewhere,
    _is_reference_id,
    cited_initials,
    no_acronym,
    sibling_regex,
)
from evalgate.checks.acronym_prose import (
    _INLINE_NON_PROSE,
    _blank,
    _blank_urls,
    comment_spans,
    kept_after,
    prose_line,
)
from evalgate.checks.acronym_tokens import GLUED, token_finder, token_regex
from evalgate.checks.acronym_uses import (
    _GROUP,
    _GROUP_MAX,
    _SIDE_BY_SIDE,
    audit_keys,
    audit_note,
    paren_group,
)


def plain_spells(abbr: str, long_form: str) -> int | None:
    """Schwartz & Hearst's walk, one character at a time (the form the check used to run)."""
    letters = acronym_letters(abbr)
    if not letters:
        return None
    text = long_form.lower()
    j = len(text) - 1
    for i in range(len(letters) - 1, -1, -1):
        c = letters[i]
        while j >= 0 and (text[j] != c or (i == 0 and j > 0 and text[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return None
        j -= 1
    return j + 1


WORDS = st.sampled_from(
    ["a", "b", "ab", "ba", "Large", "language", "model", "of", " ", "-", "(", "é", "2", "x"]
)


@settings(max_examples=400, deadline=None)
@given(
    abbr=st.sampled_from(["LLM", "AB", "A", "BA", "D3", "FTS5", "X", "ABBA", "É"]),
    parts=st.lists(WORDS, max_size=12),
)
@example(abbr="LLM", parts=["Large", " ", "language", " ", "model"])
@example(abbr="AB", parts=["ba", " ", "b"])
def test_spells_equals_the_character_walk(abbr: str, parts: list[str]) -> None:
    long_form = "".join(parts)
    assert spells_at(abbr, long_form) == plain_spells(abbr, long_form)


LABEL_TEXT = st.lists(
    st.sampled_from(
        ["D", "D1", "D3", "D31", "D3a", "xD1", "-D2", "_D4", "é", "RQ", "RQ2", " ", "\n", ".", "D"]
    ),
    max_size=10,
)


@settings(max_examples=400, deadline=None)
@given(abbr=st.sampled_from(["D3", "RQ1", "D31"]), parts=LABEL_TEXT)
@example(abbr="D3", parts=["D1"])
@example(abbr="D3", parts=["xD1"])
@example(abbr="D3", parts=["D31"])
def test_sibling_search_equals_the_look_behind_form(abbr: str, parts: list[str]) -> None:
    text = "".join(parts)
    stem = abbr.rstrip("0123456789")
    digits = abbr[len(stem) :]
    plain = re.search(rf"(?<![\w-]){stem}(?!{digits}\b)[0-9]+\b", text)
    assert (sibling_regex(stem, digits).search(text) is None) == (plain is None)


TOKEN_PIECES = (
    "LLM API A/B CoT DBaaS SaaS IaaS ToT GPT-4 -4o README md Ab B s x é É 1 _ . @ $ % & \\ - / ( ) ,"
    " Co oT aaS Pa Ma T Model"
)
TOKEN_TEXT = st.lists(st.sampled_from([*TOKEN_PIECES.split(), " ", "\n"]), max_size=14)


# What follows the acronym, as first written: optional groups, and no look-ahead at the end of `abbr`.
PLAIN_TAIL = r"(?P<suffix>-[0-9][0-9A-Za-z.]*[0-9A-Za-z]|-[0-9])?(?P<plural>s)?(?![\w@&]|\.\w)"


def plaintoken_regex(mixed_case: frozenset[str], shorthand: tuple[str, ...]) -> re.Pattern[str]:
    """The token regex unfactored: the look-behind in front, each special spelled out, no look-ahead,
    a run of capitals that may give characters back, optional groups as `(...)?` (the form that tries
    every alternative at every capital)."""
    specials = sorted((*mixed_case, *shorthand), key=len, reverse=True)
    alternatives = "".join(re.escape(s) + "|" for s in specials)
    return re.compile(f"(?P<abbr>(?<!{GLUED})(?:{alternatives}[A-Z][A-Z0-9]+)){PLAIN_TAIL}")


@settings(max_examples=500, deadline=None)
@given(parts=TOKEN_TEXT)
@example(parts=["A/B", "s"])
@example(parts=["(", "CoT", ")", "Co", "x", "DBaaS"])
def testtoken_regex_finds_what_its_unfactored_form_finds(parts: list[str]) -> None:
    table = load_table()
    text = "".join(parts)
    token = token_regex(table.mixed_case, tuple(table.shorthand))
    plain = plaintoken_regex(table.mixed_case, tuple(table.shorthand))
    assert [(m.start(), m.groups()) for m in token.finditer(text)] == [
        (m.start(), m.groups()) for m in plain.finditer(text)
    ]


@settings(max_examples=500, deadline=None)
@given(parts=TOKEN_TEXT)
@example(parts=["x", "LLM"])
@example(parts=["file", ".", "README", " ", "API"])
@example(parts=["x", "A/B", "B"])
@example(parts=["É", "API"])
def test_glued_capitals_are_refused_by_thetoken_regex_as_by_the_old_python_test(parts: list[str]) -> None:
    """The token regex refuses a token glued to the character before it (a letter, digit, `_` or
    `.@$%&\\`); the check used to find tokens without that and drop glued ones in Python. Both accept
    the same tokens at the same places."""
    table = load_table()
    text = "".join(parts)
    token = token_regex(table.mixed_case, tuple(table.shorthand))
    unglued = re.compile(token.pattern.replace(f"(?<!{GLUED}[A-Z])", "", 1))
    assert unglued.pattern != token.pattern
    old = [
        (m.start(), m.group())
        for m in unglued.finditer(text)
        if not (m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_.@$%&\\"))
    ]
    assert [(m.start(), m.group()) for m in token.finditer(text)] == old


def plain_comment_spans(text: str) -> list[tuple[int, int]]:
    """HTML comments found with `str.find("<!--")` (the form the check used to run)."""
    spans: list[tuple[int, int]] = []
    at = text.find("<!--")
    while at >= 0:
        end = text.find("-->", at + 4)
        end = len(text) if end < 0 else end + 3
        spans.append((at, end))
        at = text.find("<!--", end)
    return spans


COMMENT_TEXT = st.lists(
    st.sampled_from(["<", "<!", "<!-", "<!--", "-->", "--", "-", ">", "<b>", "x", "é", "\n"]), max_size=14
)


@settings(max_examples=500, deadline=None)
@given(parts=COMMENT_TEXT)
@example(parts=["<", "<!--", "x", "-->", "<", "<!-", "-", "<!--"])
@example(parts=["<!--", "-->", "<!--"])
def test_comment_spans_equal_the_four_character_find(parts: list[str]) -> None:
    text = "".join(parts)
    assert comment_spans(text) == plain_comment_spans(text)


SHAPE_PIECES = [" ", "\n", "—", "Ā", "\ud800", "aaS", "/B", "0", "A0", "LL-4", "😀", "ÉA", "_"]
SHAPE_TEXT = st.lists(
    st.sampled_from([*TOKEN_PIECES.split(), *SHAPE_PIECES]),
    max_size=16,
)


def found_by_finder(mixed_case: frozenset[str], shorthand: tuple[str, ...], text: str) -> list[tuple]:
    """The finder's matches, given the text alone and, where it has one, with its UTF-8 encoding (as
    `Document.utf8`): both must be the same."""
    finder = token_finder(mixed_case, shorthand)
    found = [(m.span(), m.groups()) for m in finder(text, None)]
    try:
        utf8 = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: a file read from disk never holds one
        return found
    assert [(m.span(), m.groups()) for m in finder(text, utf8)] == found
    return found


@settings(max_examples=600, deadline=None)
@given(parts=SHAPE_TEXT)
@example(parts=["—", "LLM", "—", "A/B", "s"])
@example(parts=["/B", "CoT"])
@example(parts=["x", "A0", "LLM"])
@example(parts=["A/B", "LLM"])  # a token right after a special's rest: `/` is no GLUED character
@example(parts=["😀", "É", "LLM", "—", "API"])  # characters of 2, 3 and 4 UTF-8 bytes before a token
def test_token_finder_gives_thetoken_regex_finditer_matches(parts: list[str]) -> None:
    """The search that tries the regex only where a match can start (in the text's one-byte shape)
    gives every match finditer gives, at the same places."""
    table = load_table()
    text = "".join(parts)
    token = token_regex(table.mixed_case, tuple(table.shorthand))
    found = found_by_finder(table.mixed_case, tuple(table.shorthand), text)
    assert found == [(m.span(), m.groups()) for m in token.finditer(text)]


def kept_as_they_come(tokens, quiet: frozenset[str]) -> list[tuple]:
    """The matches `tokens(ignored, settled)` gives to a caller that, like the check, grows the sets as
    it goes: a token of `quiet` is ignored once seen, any other is settled once seen."""
    ignored: set[str] = set()
    settled: set[str] = set()
    kept = []
    for m in tokens(ignored, settled):
        kept.append((m.span(), m.groups()))
        (ignored if m.group(1) in quiet else settled).add(m.group(1))
    return kept


def plain_quiet(token: re.Pattern[str], text: str, ignored: set[str], settled: set[str]):
    """finditer, less the matches the check passes over: ignored, or settled far from a `(` and capital."""
    for m in token.finditer(text):
        abbr, at = m.group(1), m.start()
        if abbr in ignored or (
            abbr in settled and re.search(r"\([A-Z]", text[max(0, at - 40) : at + 1]) is None
        ):
            continue
        yield m


QUIET_TEXT = st.lists(
    st.sampled_from(
        [*TOKEN_PIECES.split(), "DB", "DBaaS", "LLM", "LLM", "(", "(LLM", "(A ", "(A/B", " ", " ", "\n"]
    )
    | st.sampled_from(["x" * 20, " " * 30]),
    max_size=24,
)


@settings(max_examples=600, deadline=None)
@given(parts=QUIET_TEXT, quiet=st.sets(st.sampled_from(["LLM", "DB", "DBaaS", "API", "A/B", "CoT", "GPT"])))
@example(parts=["LLM", " ", "x" * 20, " " * 30, "LLM"], quiet=frozenset())  # settled, far from `(`
@example(parts=["(A ", "LLM", " ", "LLM"], quiet=frozenset())  # settled, `(` and a capital before it
@example(parts=["LLM", " ", "(A", " " * 38, "LLM"], quiet=frozenset())  # the `(` 40 characters before
@example(parts=["LLM", " ", "(A", " " * 39, "LLM"], quiet=frozenset())  # and 41
@example(parts=["DB", " ", "DBaaS", " ", "DB"], quiet={"DB"})  # an ignored run that starts a special
@example(parts=["A/B", " ", "A/B", "LLM"], quiet={"A/B"})
def test_token_finder_passes_over_the_quiet_matches_as_the_check_did(
    parts: list[str], quiet: set[str]
) -> None:
    """The finder, given the check's sets of ignored and settled acronyms (which grow as it goes),
    gives the matches finditer gives less those the check used to skip itself."""
    table = load_table()
    text = "".join(parts)
    mixed, short = table.mixed_case, tuple(table.shorthand)
    finder = token_finder(mixed, short)
    token = token_regex(mixed, short)
    plain = kept_as_they_come(lambda i, s: plain_quiet(token, text, i, s), frozenset(quiet))
    assert kept_as_they_come(lambda i, s: finder(text, None, i, s), frozenset(quiet)) == plain
    assert kept_as_they_come(lambda i, s: finder(text, text.encode(), i, s), frozenset(quiet)) == plain
    slow = token_finder(frozenset({"kNN"}), ())  # a special without a capital first: plain finditer
    assert kept_as_they_come(lambda i, s: slow(text, None, i, s), frozenset(quiet)) == kept_as_they_come(
        lambda i, s: plain_quiet(token_regex(frozenset({"kNN"}), ()), text, i, s), frozenset(quiet)
    )


SPECIAL_FORMS = ["CoT", "A/B", "A/BC", "GraphQL", "I/O", "Ax", "Q&A", "Ab.c", "X y", "Né", "A-b"]
SPECIALS = st.sampled_from(SPECIAL_FORMS)
SPECIAL_TEXT = st.lists(
    st.sampled_from([*SPECIAL_FORMS, "y", "&A"])
    | st.sampled_from([*TOKEN_PIECES.split(), " ", "\n", "—", "é"]),
    max_size=14,
)


@settings(max_examples=500, deadline=None)
@given(specials=st.lists(SPECIALS, max_size=4), shorthand=st.lists(SPECIALS, max_size=2), parts=SPECIAL_TEXT)
@example(specials=["Q&A"], shorthand=[], parts=["Q&A", "LLM"])
@example(specials=["A/BC"], shorthand=[], parts=["A/BC"])  # a place to start inside a match
def test_token_finder_equals_finditer_for_any_specials(
    specials: list[str], shorthand: list[str], parts: list[str]
) -> None:
    """The same with other specials (a configuration's mixed-case forms): rests holding letters,
    GLUED and other characters, a space, or a character that is not ASCII (the plain finditer then)."""
    mixed = frozenset(specials)
    short = tuple(dict.fromkeys(shorthand))
    text = "".join(parts)
    token = token_regex(mixed, short)
    assert found_by_finder(mixed, short, text) == [(m.span(), m.groups()) for m in token.finditer(text)]


def plain_long_form_before(before: str, abbr: str) -> str:
    """The long form's words after the last stop anywhere in `before` (the form the check used to run)."""
    stops = [m.end() for m in LONG_FORM_STOP.finditer(before)]
    if stops:
        before = before[stops[-1] :]
    n = len(acronym_letters(abbr))
    return " ".join(before.split()[-max(n + 5, 2 * n) :])


LONG_FORM_TEXT = st.lists(
    st.sampled_from(
        [
            *("a", "Large", "language", "model", " ", "  ", "\t", "\n", "\n\n", "\n \n", ".", ". "),
            *(".\n", "(", ")", "[", "]", "|", ";", ":", "\xa0", "x.y", "é"),
        ]
    ),
    max_size=30,
)


@settings(max_examples=600, deadline=None)
@given(abbr=st.sampled_from(["LLM", "A", "AB", "D3", "1", "ABCDEFG"]), parts=LONG_FORM_TEXT)
@example(abbr="A", parts=["a", ".", "\n", "\n", "a", " ", "a", " ", "a", " ", "a", " ", "a"])
@example(abbr="A", parts=["a", ";", " ", "a", " ", "a", " ", "a", " ", "a", " ", "a", " ", "a"])
@example(abbr="A", parts=["a", " ", "a", " ", ";", *["a", " "] * 6])
def test_long_form_looks_for_stops_among_its_last_words_only(abbr: str, parts: list[str]) -> None:
    before = "".join(parts)
    assert long_form_before(before, abbr) == plain_long_form_before(before, abbr)


@settings(max_examples=400, deadline=None)
@given(specials=st.lists(SPECIALS | st.just("kNN"), max_size=4), parts=SPECIAL_TEXT)
@example(specials=["A/BC"], parts=["x", "A/BC", "-", "1", "_"])
def test_token_regex_equals_its_unfactored_form_for_any_specials(
    specials: list[str], parts: list[str]
) -> None:
    """The factored token regex against the unfactored one with other specials too (`kNN`, which starts
    with no capital, takes the slow form)."""
    mixed = frozenset(specials)
    text = "".join(parts)
    token, plain = token_regex(mixed, ()), plaintoken_regex(mixed, ())
    assert [(m.span(), m.groups()) for m in token.finditer(text)] == [
        (m.span(), m.groups()) for m in plain.finditer(text)
    ]


def plain_cited_initials(text: str) -> frozenset[str]:
    """The initials between a surname and a year, found from the comma (the form the check used to run)."""
    found = set()
    for cited in re.finditer(r", ([^\s,(]+) \((?:1[5-9]|20)[0-9][0-9]\b", text):
        at = cited.start()
        if _SURNAME.search(text, text.rfind("\n", 0, at) + 1, at) is not None:
            found.add(cited.group(1))
    return frozenset(found)


CITATION_TEXT = st.lists(
    st.sampled_from(
        [
            *("Manchak", ",", " ", ", ", "JB", "J.B.", "AI", "x", "(", "(2025)", "(1499", "(2100", "(1500"),
            *("2025", "20251", "\n", "\t", "\xa0", "é", "a/b", ")", "Li", "de", "-", "(20"),
        ]
    ),
    max_size=16,
)


@settings(max_examples=600, deadline=None)
@given(parts=CITATION_TEXT)
@example(parts=["Manchak", ", ", "JB", " ", "(2025)"])
@example(parts=["Manchak", ", ", "JB", " ", "(2025)", ", ", "AI", " ", "(2025)"])
@example(parts=["Manchak", ",", "\xa0", "JB", " ", "(2025)"])  # no space after the comma
@example(parts=["Manchak", ", ", "J", "\t", "B", " ", "(2025)"])  # white space inside the token
@example(parts=["Manchak", ", ", " ", "(2025)"])  # no token at all
@example(parts=[", ", "JB", " ", "(2025)"])  # a comma at the start of the text
@example(parts=["Manchak", ", ", "JB", "(2025)"])  # no space before the year
@example(parts=["(2025)", "Manchak", ", ", "JB", "\xa0", "(2025)"])
def test_cited_initials_from_the_year_equal_the_search_from_the_comma(parts: list[str]) -> None:
    text = "".join(parts)
    assert cited_initials(text) == plain_cited_initials(text)


AUDIT_WORDS = ["acronym", "expanded", "not", "un", "as", "first", "x", "é", "İ", " ", "  ", "ß", "-"]


@settings(max_examples=600, deadline=None)
@given(
    phrases=st.lists(
        st.lists(st.sampled_from(AUDIT_WORDS[:-3]), min_size=1, max_size=3).map(" ".join),
        min_size=1,
        max_size=5,
    ),
    parts=st.lists(st.sampled_from([*AUDIT_WORDS, "ACRONYM", "Expanded", "UNEXPANDED"]), max_size=12),
)
@example(phrases=["unexpanded", "not expanded"], parts=["UNEXPANDED"])
@example(phrases=["un", "unexpanded"], parts=["un"])
@example(phrases=["  "], parts=["x", "  ", "x"])  # a blank phrase (params refuse one; the table may not)
def test_audit_keys_only_pass_over_lines_without_a_phrase(phrases: list[str], parts: list[str]) -> None:
    """A line holds one of the audit phrases exactly when, looked for after the keys, it does."""
    lowered = tuple(p.lower() for p in phrases)
    line = "".join(parts)
    assert audit_note(line, lowered, audit_keys(lowered)) == audit_note(line, lowered)


def plain_prose_line(line: str) -> str:
    """Each non-prose pattern run where its hint is in the line, without the gates in front."""
    for _, hint, pattern in _INLINE_NON_PROSE:
        if hint in line:
            line = _blank_urls(line) if pattern is None else pattern.sub(_blank, line)
    return line


PROSE_PIECES = [
    "`",
    "](",
    "]",
    "(",
    ")",
    "]:",
    "[",
    "<b>",
    "<",
    ">",
    "http",
    "://",
    "www.",
    "w",
    ".",
    "mailto:",
]


@settings(max_examples=600, deadline=None)
@given(parts=st.lists(st.sampled_from([*PROSE_PIECES, ":", "x", " ", "LLM", "é"]), max_size=16))
@example(parts=["[", "x", "]:", " ", "y"])
@example(parts=["see ", "http", "://", "x", " ", "mailto:", "a"])
def test_prose_line_with_gates_masks_what_the_hints_alone_mask(parts: list[str]) -> None:
    line = "".join(parts)
    assert prose_line(line) == plain_prose_line(line)


URL_PIECES = ["https", "http", "://", "x", "1", "+", ".", "-", "(", ")", "[", " ", "é", "ftp", "s", "<"]


@settings(max_examples=800, deadline=None)
@given(parts=st.lists(st.sampled_from(URL_PIECES), max_size=16))
@example(parts=["https", "://", "x", " ", "https", "://", "y"])
@example(parts=["x", "https", "://", "x"])  # a scheme character before `https`
@example(parts=["https", "://", "https", "://", "x"])  # `https` right after the last URL's end
def test_urls_found_from_their_colon_are_the_regex_matches(parts: list[str]) -> None:
    """`_blank_urls` blanks exactly what `re.sub` of a scheme, `://` and the URL body blanks."""
    line = "".join(parts)
    url = r"[A-Za-z][A-Za-z0-9+.-]*://[^\s<>()\[\]]*(?:\([^\s()]*\)[^\s<>()\[\]]*)*"
    assert _blank_urls(line) == re.sub(url, _blank, line)


def plain_paren_group(masked: str, start: int, end: int) -> tuple[int, str, bool] | None:
    """paren_group with the group pattern asked before the one-acronym test (the form it used to run)."""
    opening = masked.rfind("(", max(0, start - _GROUP_MAX), start)
    closing = masked.find(")", end, start + _GROUP_MAX)
    if opening < 0 or closing < 0 or ")" in masked[opening:start] or "(" in masked[end:closing]:
        return None
    text = masked[opening + 1 : closing]
    chunks = text.split()
    if (
        _GROUP.fullmatch(text) is None
        or (len(chunks) > 1 and not all(_SIDE_BY_SIDE.fullmatch(c) for c in chunks))
        or (len(chunks) == 1 and not any(c in chunks[0] for c in "/-+&"))
    ):
        return None
    return opening, text.strip(), start == opening + 1 or masked[start - 1] in " \t"


GROUP_PIECES = ["(", ")", "CI", "CD", "AI", "RMF", "/", "-", "+", "&", " ", "\t", "x", "'", ",", "é", "_"]


@settings(max_examples=800, deadline=None)
@given(
    before=st.lists(st.sampled_from(GROUP_PIECES), max_size=8),
    after=st.lists(st.sampled_from(GROUP_PIECES), max_size=8),
)
@example(before=["("], after=[")"])
@example(before=["(", "CI", "/"], after=[")"])
@example(before=["(", "Q", "&"], after=[")"])
@example(before=["(", " "], after=[" ", ")"])
def test_paren_group_asks_for_one_acronym_first_with_the_same_answer(
    before: list[str], after: list[str]
) -> None:
    masked = "".join(before) + "LLM" + "".join(after)
    start = len("".join(before))
    assert paren_group(masked, start, start + 3) == plain_paren_group(masked, start, start + 3)


AFTER_PIECES = [
    *PROSE_PIECES,
    "LLM",
    "GPT-4www.x",
    "A/B",
    "A`B",
    "A]B",
    "A<B",
    "A:B",
    "A](B",
    "x",
    "2",
    " ",
    "\t",
    ",",
    ":",
    "-",
    "—",
    "=",
    "!",
    "https",
    "ftp2",
    "m",
]


@settings(max_examples=1500, deadline=None)
@given(parts=st.lists(st.sampled_from(AFTER_PIECES), max_size=14))
@example(parts=["(", "LLM", ")"])
@example(parts=["(", "LLM", ",", " ", "x", ")"])
@example(parts=["(", "A](B", ")", " ", "-", " ", "x", ")"])  # a link target from inside the token
@example(parts=["(", "LLM", " ", "www.", "x", ",", " ", "x", ")"])  # `www.x,` is blanked: the `,` stays
@example(parts=["(", "LLM", " ", "https", "://", "x", " ", "-", " ", "x", ")"])
@example(parts=["(", "GPT-4www.x", "!", " ", "-", " ", "x", ")"])  # the `!` is the token's `www.` span's
@example(parts=["(", "A`B", " ", "x", "`", ",", " ", "x", ")"])  # a code span from inside the token
def test_what_kept_after_passes_over_is_no_reversed_expansion(parts: list[str]) -> None:
    """Where `kept_after` holds for a token whose first character masking keeps, the masked line has
    the same character there, and no reversed expansion's `,`, `:` or dash after the token."""
    line = "".join(parts)
    masked = prose_line(line)
    specials = frozenset({"A/B", "A`B", "A]B", "A](B", "A<B", "A:B"})
    for m in token_regex(specials, ()).finditer(line):
        if masked[m.start()] == " " or not kept_after(line, m.end(), m.group()):
            continue
        kept = m.end() + len(line[m.end() :]) - len(line[m.end() :].lstrip(" \t"))
        assert masked[kept] == line[kept]
        assert _REVERSED_TAIL.match(masked[m.end() :]) is None


def plain_no_acronym(abbr: str, text: str, initials: frozenset[str]) -> bool:
    """no_acronym with every test asked in its old order, the regexes on any token."""
    table = load_table()
    return (
        abbr in table.not_acronyms
        or (abbr in table.capitalised_words and not _expanded_somewhere(abbr, text, table))
        or _ROMAN.fullmatch(abbr) is not None
        or _is_reference_id(abbr, text, table)
        or abbr in initials
    )


TOKEN_CHARS = st.sampled_from(["I", "V", "X", "D", "L", "M", "Q", "R", "0", "1", "3", "9", "/", "o", "T"])


@settings(max_examples=1500, deadline=None)
@given(
    abbr=st.lists(TOKEN_CHARS, min_size=1, max_size=6).map("".join),
    others=st.lists(st.lists(TOKEN_CHARS, min_size=1, max_size=6).map("".join), max_size=4),
    cited=st.booleans(),
)
@example(abbr="XIV", others=[], cited=False)
@example(abbr="D3", others=["D1"], cited=False)
@example(abbr="LLM10", others=["LLM09"], cited=False)
@example(abbr="RQ", others=[], cited=True)
def test_no_acronym_asks_its_regexes_only_of_tokens_they_can_match(
    abbr: str, others: list[str], cited: bool
) -> None:
    """A Roman numeral is made of I, V and X, a reference id holds a digit: no_acronym asks those
    patterns of no other token, with the same answer."""
    text = " ".join([*others, abbr, "(TIME)", "Tolerate, Invest, Migrate, Eliminate (TIME)"])
    initials = frozenset({abbr}) if cited else frozenset()
    table = load_table()
    assert no_acronym(abbr, text, table, initials) == plain_no_acronym(abbr, text, initials)
