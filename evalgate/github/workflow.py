"""The GitHub Actions runner's file and stdout channels: step outputs, job summary, workflow commands.

These need no token, so they are what a run without one (or a fork PR whose token cannot write checks)
still has: annotations as `::error file=...::` lines on stdout, the job summary file and step outputs.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from evalgate.github.checks_run import Annotation
from evalgate.report.escape import command_message, command_property, truncate_utf8, utf8_len

STEP_SUMMARY_LIMIT = 1024 * 1024  # bytes GitHub accepts per step summary
_TRUNCATED_NOTE = "\n\n> **Note:** this summary was cut at GitHub's 1 MiB limit.\n"

# Annotation levels of the Checks API and the workflow commands that show the same thing.
_COMMAND_FOR_LEVEL = {"failure": "error", "warning": "warning", "notice": "notice"}


def workflow_command(command: str, message: str, properties: Mapping[str, str | int] | None = None) -> str:
    """One workflow-command line, every property and the message escaped by the runner's rules."""
    props = ",".join(f"{key}={command_property(str(value))}" for key, value in (properties or {}).items())
    head = f"::{command} {props}" if props else f"::{command}"
    return f"{head}::{command_message(message)}"


def add_mask(secret: str) -> str:
    """The command that makes the runner replace `secret` with `***` in all later log output."""
    # The secret itself must reach the runner verbatim to be masked; only line breaks are escaped so
    # a token cannot inject a second command.
    return workflow_command("add-mask", secret)


def annotation_command(annotation: Annotation) -> str:
    """An annotation as a workflow command (`::error file=…,line=…,endLine=…,title=…::message`)."""
    properties: dict[str, str | int] = {
        "file": annotation.path,
        "line": annotation.start_line,
        "endLine": annotation.end_line,
    }
    if annotation.title:
        properties["title"] = annotation.title
    return workflow_command(_COMMAND_FOR_LEVEL[annotation.level], annotation.message, properties)


def emit_annotations(annotations: Sequence[Annotation], stream: TextIO) -> int:
    """Print annotations as workflow commands; returns how many lines were written."""
    for annotation in annotations:
        stream.write(annotation_command(annotation) + "\n")
    stream.flush()
    return len(annotations)


def format_outputs(outputs: Mapping[str, str]) -> str:
    """Step outputs in the `GITHUB_OUTPUT` file format.

    Single-line values are `name=value`; a multi-line value uses a heredoc whose delimiter is random
    per value, so no value (which may quote untrusted text) can contain it and end the value early.
    """
    lines: list[str] = []
    for name, value in outputs.items():
        if "\n" in value or "\r" in value:
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
            while delimiter in value:  # astronomically unlikely, but the format breaks if it happens
                delimiter = f"ghadelimiter_{uuid.uuid4()}"
            lines.extend([f"{name}<<{delimiter}", value, delimiter])
        else:
            lines.append(f"{name}={value}")
    return "".join(line + "\n" for line in lines)


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append step outputs to the file named by `GITHUB_OUTPUT`."""
    with path.open("a", encoding="utf-8") as out:
        out.write(format_outputs(outputs))


def fit_step_summary(markdown: str, limit: int = STEP_SUMMARY_LIMIT) -> str:
    """The markdown cut to fit GitHub's step-summary limit, with a note saying so when cut."""
    if utf8_len(markdown) <= limit:
        return markdown
    return truncate_utf8(markdown, limit - utf8_len(_TRUNCATED_NOTE)) + _TRUNCATED_NOTE


def write_step_summary(path: Path, markdown: str, limit: int = STEP_SUMMARY_LIMIT) -> None:
    """Append the job summary to the file named by `GITHUB_STEP_SUMMARY`, within the size limit."""
    with path.open("a", encoding="utf-8") as out:
        out.write(fit_step_summary(markdown, limit))
