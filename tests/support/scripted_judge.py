"""A judge whose replies the test controls: `python scripted_judge.py SPEC.json`, prompt on stdin.

SPEC: {"scores": {dimension: score}, "default": 3, "reasoning": {dimension: text},
       "evidence": {dimension: quote}, "by_text": [[substring, {dimension: score} | score]],
       "prefer": "1" | "2" | "tie", "prefer_containing": substring, "fail": true,
       "fail_when": substring, "log": path}
Rubric replies list every dimension id the prompt's reply format names; a `by_text` entry whose
substring is in the prompt overrides the scores. Pairwise prompts (they hold `## Response 2`) get
{"preferred": ...}: `prefer` as given, or the response that contains `prefer_containing`.
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
        print(json.dumps({"preferred": preferred, "reason": "scripted"}))
        return 0
    reply_format = prompt[prompt.rfind("Reply format") :]
    ids = re.findall(r'^\s+"([a-z][a-z0-9_]*)": \{"score"', reply_format, re.MULTILINE)
    ids = ids or []
    scores = dict(spec.get("scores", {}))
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
