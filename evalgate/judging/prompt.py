"""Judge prompts: the rubric's judged dimensions and one document rendered through a Jinja2 template.

The templates live in `prompts/` and are the only place prompt wording lives. The document is
untrusted, so it is only ever the *value* of a template variable (never template source), the
environment is sandboxed with `StrictUndefined`, and the document sits between fence lines carrying a
token that does not occur in it, so nothing it says can close the fence. Everything that varies between
calls (criteria order, fence token) is derived from the seed and the call: the criteria order from
(seed, document, judge, attempt), so two documents, two judges of a trio or a question asked twice get
different orders, and a re-run renders every prompt byte for byte as before.

The prompt version is a hash of the template set a judge is asked with: the template, every template
it includes, and the repair template (with its includes) that a retry sends. Editing any of them
changes it, and with it the recorded version, the cache key and the canary's baseline.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jinja2
from jinja2 import meta
from jinja2.sandbox import SandboxedEnvironment

import evalgate
from evalgate.document import Document, shown
from evalgate.judging.inputs import InputItemError, judge_view
from evalgate.rubric import Dimension, Policy, Rubric

ReplyFormat = Literal["table", "json"]
PROMPTS_ENV = "EVALGATE_PROMPTS_DIR"
REPAIR_TEMPLATE = "repair.md.j2"
VERSION_CHARS = 12  # as short as the rubric's version
_FENCE_PREFIX = "EVALGATE-DATA-"


class PromptError(Exception):
    """A judge template is missing or broken; the message names the template."""


@dataclass(frozen=True)
class RenderedPrompt:
    """A judge prompt as sent, with what is needed to reproduce it and to key a cache on it."""

    text: str
    template_name: str
    template_sha256: str  # over the template set: the template, its includes, the repair template's
    dimension_order: tuple[str, ...]  # judged dimension ids in the order the prompt lists them
    fence: str  # the token around the document
    seed: int
    reply_format: ReplyFormat = "table"
    judge: int = 0  # the judge's place in the run's list of judges (0: the first)
    attempt: int = 0  # how many times this judge was asked about this document before

    @property
    def version(self) -> str:
        """The prompt version: the template set's hash, short."""
        return self.template_sha256[:VERSION_CHARS]

    @property
    def sha256(self) -> str:
        """Hash of the full prompt text."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def prompts_dir() -> Path:
    """Where the judge templates are: `$EVALGATE_PROMPTS_DIR`, else the repository's top-level
    `prompts/` next to the package, else `prompts/` inside the installed package (the Docker image
    copies them there)."""
    override = os.environ.get(PROMPTS_ENV)
    if override:
        return Path(override)
    beside_package = Path(evalgate.__file__).resolve().parent.parent / "prompts"
    if beside_package.is_dir():
        return beside_package
    from importlib import resources

    return Path(str(resources.files("evalgate") / "prompts"))


@lru_cache(maxsize=8)
def _environment(directory: str) -> SandboxedEnvironment:
    # Sandboxed although only our own templates are ever compiled: it is one more wall should a
    # future change ever let untrusted text reach template source.
    return SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(directory),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _template_sha256(env: SandboxedEnvironment, *names: str) -> str:
    """Hash the templates and every template they include, so editing any of them changes the hash."""
    assert env.loader is not None
    seen: dict[str, str] = {}
    pending = list(names)
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        source, _, _ = env.loader.get_source(env, current)
        seen[current] = source
        pending.extend(_references(env, source))
    digest = hashlib.sha256()
    for template_name in sorted(seen):
        digest.update(f"{template_name}\0{seen[template_name]}\0".encode())
    return digest.hexdigest()


@lru_cache(maxsize=64)
def _references(env: SandboxedEnvironment, source: str) -> tuple[str, ...]:
    """The templates a template's source includes or extends. Parsed once per source text: parsing
    took ~4 ms a prompt, more than rendering it, in the judge threads a fan-out keeps busy."""
    return tuple(ref for ref in meta.find_referenced_templates(env.parse(source)) if ref is not None)


def _render(name: str, variables: dict[str, Any], *, hashed_with: tuple[str, ...] = ()) -> tuple[str, str]:
    """(text, hash of the template set: `name`, the templates in `hashed_with`, their includes)."""
    directory = prompts_dir()
    env = _environment(str(directory))
    try:
        template = env.get_template(name)
        return template.render(**variables), _template_sha256(env, name, *hashed_with)
    except jinja2.TemplateNotFound as exc:
        raise PromptError(f"judge template {exc.name!r} not found in {directory}") from None
    except jinja2.TemplateError as exc:
        raise PromptError(f"judge template {name!r} in {directory} is broken: {exc}") from None


def render_template(name: str, variables: dict[str, Any]) -> tuple[str, str]:
    """Render any template in `prompts/` with these variables: (text, template sha256). Raises
    PromptError. Untrusted text must only ever be a variable's value, fenced by the template."""
    return _render(name, variables)


def fence_token(text: str, seed: int, *, avoid: Sequence[str] = ()) -> str:
    """A token derived from the seed and the text's hash that occurs in none of `text` and `avoid`.

    Derived rather than random so the same document and seed give the same prompt; a document that
    happens to contain the token (or is crafted to) just moves the derivation on to the next attempt.
    """
    text_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
    attempt = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{text_hash}:{attempt}".encode()).hexdigest()
        token = _FENCE_PREFIX + digest[:20].upper()
        if token not in text and not any(token in other for other in avoid):
            return token
        attempt += 1


def order_key(seed: int, text: str, judge: int = 0, attempt: int = 0) -> int:
    """The number a call's criteria order is drawn from: (seed, the document's sha256, the judge's
    place in the run's list of judges, the attempt), hashed. The judge's place, not its name, so a
    recorded judge replayed in its place is shown the prompt it was recorded on."""
    text_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
    digest = hashlib.sha256(f"order\0{seed}\0{text_hash}\0{judge}\0{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def dimension_order(
    rubric: Rubric, seed: int, text: str = "", *, judge: int = 0, attempt: int = 0
) -> tuple[Dimension, ...]:
    """The rubric's judged dimensions shuffled for one call. A fixed order would let a position effect
    bias every judgement alike and stay invisible; drawn per call from (seed, document, judge,
    attempt) it varies across documents, judges and attempts, averages out over a run and can be
    measured (`calibrate`, `compare`), while a re-run asks every call exactly as before."""
    dims = list(rubric.judged)
    random.Random(order_key(seed, text, judge, attempt)).shuffle(dims)
    return tuple(dims)


def prompt_version(rubric: Rubric) -> str:
    """The version of the prompt this rubric's judges are asked with (the template set's hash, short);
    raises PromptError when a template is missing or broken."""
    directory = prompts_dir()
    env = _environment(str(directory))
    try:
        return _template_sha256(env, judge_template(rubric), REPAIR_TEMPLATE)[:VERSION_CHARS]
    except jinja2.TemplateNotFound as exc:
        raise PromptError(f"judge template {exc.name!r} not found in {directory}") from None
    except jinja2.TemplateError as exc:
        raise PromptError(f"judge template set in {directory} is broken: {exc}") from None


def policy_text(policy: Policy, hard_fail_ids: Sequence[str]) -> str:
    """The rubric policy in words, for the judge's OVERALL line (the gate never relies on that line)."""
    rules: list[str] = []
    if policy.fail_on_score is not None:
        rules.append(f"no dimension scores {policy.fail_on_score} or lower")
    if policy.min_each is not None:
        rules.append(f"every dimension scores at least {policy.min_each}")
    if policy.min_mean is not None:
        rules.append(f"the mean score is at least {policy.min_mean:g}")
    if hard_fail_ids:
        rules.append(
            f"the hard-fail dimensions ({', '.join(hard_fail_ids)}) score at least {policy.hard_fail_below}"
        )
    return ", ".join(rules) if rules else "you judge the document acceptable on these dimensions"


def _contract_variables(rubric: Rubric, dims: Sequence[Dimension]) -> dict[str, Any]:
    return {
        "dimensions": [
            {
                "id": d.id,
                "title": d.title,
                "description": d.description.strip(),
                "anchors": sorted(d.anchors.items(), reverse=True),
                "hard_fail": d.hard_fail,
                "examples": [
                    {"text": e.text.strip(), "meets": e.meets, "why": e.why.strip()} for e in d.examples
                ],
            }
            for d in dims
        ],
        "scale_min": rubric.scale.min,
        "scale_max": rubric.scale.max,
        "policy_text": policy_text(rubric.policy, [d.id for d in dims if d.hard_fail]),
    }


def _document_text(document: Document | str) -> tuple[str, tuple[str, ...]]:
    """The text a judge is shown and what it is told was removed: a document as a reader of the
    rendered file reads it (evalgate.document.shown), a string as it is."""
    return (document, ()) if isinstance(document, str) else shown(document)


def _default_template(reply_format: ReplyFormat) -> str:
    return "likert-json.md.j2" if reply_format == "json" else "likert-table.md.j2"


def judge_template(
    rubric: Rubric, template: str | None = None, reply_format: ReplyFormat | None = None
) -> str:
    """The template a judge prompt is rendered from: `template`, else the rubric's; a JSON reply format
    with the default table template switches to the JSON template."""
    fmt: ReplyFormat = reply_format or rubric.judging.reply
    name = template or rubric.judging.template
    if template is None and fmt == "json" and name == "likert-table.md.j2":
        name = _default_template(fmt)
    return name


def render_judge_prompt(
    rubric: Rubric,
    document: Document | str,
    seed: int,
    *,
    template: str | None = None,
    reply_format: ReplyFormat | None = None,
    judge: int = 0,
    attempt: int = 0,
) -> RenderedPrompt:
    """Render the prompt asking one judge to score every judged dimension of `document`.

    `template` and `reply_format` default to the rubric's `judging` settings (see `judge_template`).
    `judge` is the judge's place in the run's list of judges and `attempt` how many times it was asked
    about this document before; with the seed and the document they decide the criteria order.
    """
    fmt: ReplyFormat = reply_format or rubric.judging.reply
    name = judge_template(rubric, template, reply_format)
    text, removed = _document_text(document)
    if rubric.inputs is not None:
        # A structured item: the judge sees only the rubric's named parts (see judging.inputs), as
        # written: it is YAML, not markdown a reader sees rendered.
        if isinstance(document, Document) and document.file_lines is not None:
            text, removed = "\n".join(document.file_lines), ()
        try:
            text = judge_view(rubric, text, document.path if isinstance(document, Document) else "input")
        except InputItemError as exc:
            raise PromptError(str(exc)) from None
    dims = dimension_order(rubric, seed, text, judge=judge, attempt=attempt)
    fence = fence_token(text, seed)
    variables = _contract_variables(rubric, dims)
    variables.update(
        instructions=rubric.judging.instructions.strip(), document=text, fence=fence, removed=list(removed)
    )
    rendered, sha = _render(name, variables, hashed_with=(REPAIR_TEMPLATE,))
    return RenderedPrompt(
        text=rendered,
        template_name=name,
        template_sha256=sha,
        dimension_order=tuple(d.id for d in dims),
        fence=fence,
        seed=seed,
        reply_format=fmt,
        judge=judge,
        attempt=attempt,
    )


def render_repair_prompt(
    rubric: Rubric, prompt: RenderedPrompt, previous_reply: str, problems: Sequence[str]
) -> str:
    """The retry prompt after an unusable reply: the original prompt (backends keep no conversation),
    the reasons the reply could not be used, the reply itself fenced as data, and the format again."""
    by_id = {d.id: d for d in rubric.judged}
    dims = [by_id[i] for i in prompt.dimension_order if i in by_id]
    variables = _contract_variables(rubric, dims)
    variables.update(
        original_prompt=prompt.text.rstrip("\n"),
        previous_reply=previous_reply,
        problems=list(problems) or ["the reply did not follow the format"],
        reply_format=prompt.reply_format,
        reply_fence=fence_token(previous_reply, prompt.seed, avoid=[prompt.text]),
    )
    text, _ = _render(REPAIR_TEMPLATE, variables)
    return text
