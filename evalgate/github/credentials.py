"""The action's tokens are kept in its memory only: one re-exec with a scrubbed environment, the
tokens handed over on a pipe.

The runner starts the container with credentials in its environment: the `github-token` and
`copilot-token` inputs (INPUT_GITHUB-TOKEN, INPUT_COPILOT-TOKEN), often GITHUB_TOKEN, and the runner's
ACTIONS_* service tokens. Removing them from `os.environ` changes what children inherit, not the
process's own environment block: the kernel keeps the block a program was started with and shows it
in /proc/PID/environ to every process of the same user, and to root. A judge, or a program a judge
runs, could read the tokens there from any ancestor. So before anything else the entrypoint writes the
two tokens it uses to a pipe and execs itself again with an environment that holds no credential and
the pipe's read end inherited; the second start reads the tokens from the pipe and closes it. No
process then has a token in its environment block (a judge gets only its own credential, the
copilot-token, passed to it on purpose), nor in its command line.
"""

from __future__ import annotations

import json
import os
import select
import sys
from collections.abc import Mapping, MutableMapping

# Set on the second start: the number of the inherited pipe's read end (a number, not a secret).
CREDENTIALS_FD = "EVALGATE_CREDENTIALS_FD"
# Credentials a container action may receive that no judge (a tool-enabled agent, or any command
# backend) should ever see; the reporter gets the github-token directly, not through the environment.
CREDENTIAL_VARIABLES = (
    "INPUT_GITHUB-TOKEN",
    "INPUT_COPILOT-TOKEN",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)
HANDED_OVER = ("INPUT_GITHUB-TOKEN", "INPUT_COPILOT-TOKEN")  # the ones the action itself uses


class CredentialsError(Exception):
    """The tokens could not be handed over; the message says why (never what they are)."""


def restart_without_credentials(environ: Mapping[str, str]) -> None:
    """Exec this program again with `environ` less every credential variable, the two inputs the
    action uses passed on a pipe. Returns only when there is nothing to do: this is the second start
    (CREDENTIALS_FD is set), or the environment holds no credential. Raises CredentialsError when the
    tokens do not fit the pipe, OSError when the exec fails."""
    if CREDENTIALS_FD in environ or not any(name in environ for name in CREDENTIAL_VARIABLES):
        return
    payload = json.dumps({name: environ[name] for name in HANDED_OVER if name in environ}).encode()
    if len(payload) > select.PIPE_BUF:  # written whole before the exec, so it must fit at once
        raise CredentialsError(f"the token inputs are longer than {select.PIPE_BUF} bytes together")
    read_end, write_end = os.pipe()
    os.write(write_end, payload)
    os.close(write_end)  # the second start reads to the end of the pipe
    os.set_inheritable(read_end, True)
    scrubbed = {name: value for name, value in environ.items() if name not in CREDENTIAL_VARIABLES}
    scrubbed[CREDENTIALS_FD] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, sys.orig_argv, scrubbed)


def receive_credentials(environ: MutableMapping[str, str]) -> dict[str, str]:
    """The credential variables the first start put on the pipe (none without a pipe), read to the
    end; the pipe is closed and CREDENTIALS_FD removed from `environ`."""
    number = environ.pop(CREDENTIALS_FD, None)
    if number is None:
        return {}
    try:
        with os.fdopen(int(number), "rb") as pipe:
            data = pipe.read(select.PIPE_BUF + 1)
        received = json.loads(data)
    except (OSError, ValueError) as exc:
        raise CredentialsError(
            f"the tokens could not be read back from the pipe ({type(exc).__name__})"
        ) from None
    if not isinstance(received, dict) or not all(isinstance(v, str) for v in received.values()):
        raise CredentialsError("the tokens read back from the pipe are not what was written")
    return {name: value for name, value in received.items() if name in HANDED_OVER}
