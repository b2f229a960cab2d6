"""Writes evalgate/rubrics/compiled.py, the shipped packs validated ahead: run
`python -m evalgate.rubrics.compile_packs` after editing a pack's YAML (tests/test_rubric_packs.py fails
until then, and meanwhile the edited pack is validated from its YAML at every run)."""

from __future__ import annotations

import pprint

from evalgate.rubric import PACKS_DIR, pack_digest, pack_names, parse_rubric

HEADER = '''"""The rubric packs beside this file, validated: written by
`python -m evalgate.rubrics.compile_packs` from their YAML, which stays the source
(tests/test_rubric_packs.py holds the two equal). A pack is taken from here only while its YAML has
the SHA-256 recorded with it; otherwise it is validated from the YAML, so an edited pack is never
stale. Loading the packs this way keeps pydantic out of a run that validates no file of the user's
(docs/scale.md). Do not edit by hand."""

from __future__ import annotations

from evalgate.rubric import *  # noqa: F403
from evalgate.rubrics.params import *  # noqa: F403

PACKS = {
'''


def compiled_packs_source() -> str:
    """The text of evalgate/rubrics/compiled.py for the packs as they are now."""
    body = []
    for name in pack_names():
        data = (PACKS_DIR / f"{name}.yml").read_bytes()
        rubric = parse_rubric(data.decode("utf-8"), f"rubric pack {name}")
        shown = pprint.pformat(rubric, width=100, sort_dicts=False).replace("\n", "\n        ")
        body.append(f"    {name!r}: (\n        {pack_digest(data)!r},\n        {shown},\n    ),\n")
    return HEADER + "".join(body) + "}\n"


if __name__ == "__main__":
    (PACKS_DIR / "compiled.py").write_text(compiled_packs_source(), encoding="utf-8")
