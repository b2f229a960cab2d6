"""A judge whose replies the test controls: `python scripted_judge.py SPEC.json`, prompt on stdin.

SPEC: {"scores": {dimension: score}, "default": 3, "by_position": [score, ...],
       "reasoning": {dimension: text}, "evidence": {dimension: quote},
       "by_text": [[substring, {dimension: score} | score]],
       "prefer": "1" | "2" | "tie", "prefer_containing": substring, "criteria": true,
       "criteria_tie_after": n, "fail": true, "fail_when": substring, "log": path}
Rubric replies list every dimension id the prompt's reply format names; `by_position` scores them by
their place in it (a judge with a position effect), and a `by_text` entry whose substring is in the
prompt overrides the scores. Pairwise prompts (they hold `## Response 2`) get
{"preferred": ...}: `prefer` as given, or the response that contains `prefer_containing`; with
`criteria` (or `criteria_tie_after`) also {"criteria": {id: ...}}, each criterion the overall
preference, except those listed after the first `criteria_tie_after`, which are a tie.
"""

from __future__ import annotations

import json
import re
import sys


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    prompt = sys.stdin.read()
    if spec.get("log"):  # keep every prompt, so a test can assert what the judge saw
        with open(spec["log"], "a", encoding="utf-8") as log:
            log.write(prompt + "\n\0\n")
    if spec.get("fail") or (spec.get("fail_when") and spec["fail_when"] in prompt):
        print("scripted failure", file=sys.stderr)
        return 3
    if "## Response 2" in prompt:
        preferred = spec.get("prefer", "tie")
        token = spec.get("prefer_containing")
        if token:
            at, second = prompt.find(token), prompt.find("## Response 2")
            preferred = "tie" if at < 0 else ("1" if at < second else "2")
        reply = {"preferred": preferred, "reason": "scripted"}
        if spec.get("criteria") or "criteria_tie_after" in spec:
            listed = prompt[prompt.find("## Criteria") : prompt.find("## Response 1")]
            order = re.findall(r"^- ([a-z][a-z0-9_]*) — ", listed, re.MULTILINE)
            cut = spec.get("criteria_tie_after", len(order))
            reply["criteria"] = {c: preferred if i < cut else "tie" for i, c in enumerate(order)}
        print(json.dumps(reply))
        return 0
    reply_format = prompt[prompt.rfind("Reply format") :]
    ids = re.findall(r'^\s+"([a-z][a-z0-9_]*)": \{"score"', reply_format, re.MULTILINE)
    ids = ids or []
    scores = dict(spec.get("scores", {}))
    scores.update(zip(ids, spec.get("by_position", []), strict=False))
    for substring, override in spec.get("by_text", []):
        if substring in prompt:
            scores.update(override if isinstance(override, dict) else {i: override for i in ids})
    dims = {
        i: {
            "score": scores.get(i, spec.get("default", 3)),
            "evidence": [spec.get("evidence", {}).get(i, "")] if spec.get("evidence", {}).get(i) else [],
            "reasoning": spec.get("reasoning", {}).get(i, ""),
        }
        for i in ids
    }
    print(json.dumps({"dimensions": dims}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
