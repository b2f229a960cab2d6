"""The action's container entrypoint: hand the runner's environment to evalgate.github.action.main.

Everything else (inputs, git trust, tokens, the run, publishing, the exit code) lives in
evalgate/github/action.py, so it is tested as ordinary code; this file only maps the process to it.
First it takes the tokens out of the process's environment block: it starts itself again without
them, handing them over on a pipe (evalgate/github/credentials.py), so no process in the container has
them in /proc/PID/environ. Because the container runs as root, it gives what the run wrote into the
workspace to the workspace's owner afterwards (evalgate/github/ownership.py).
"""

import os
import sys
from pathlib import Path

# Only this (json, os, select) is imported before the restart, which then costs one interpreter start.
from evalgate.github.credentials import CredentialsError, receive_credentials, restart_without_credentials

if __name__ == "__main__":
    try:
        restart_without_credentials(os.environ)  # returns only on the second start, or with nothing to hide
        credentials = receive_credentials(os.environ)
    except (CredentialsError, OSError) as exc:
        # not a configuration error of the user's: the tokens stay out of reach, so nothing is posted
        print(f"::error title=evalgate::evalgate could not keep the tokens out of its environment: {exc}")
        sys.exit(2)
    from evalgate.github.action import main
    from evalgate.github.ownership import give_to_workspace_owner

    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or os.getcwd())
    try:
        code = main(os.environ, credentials=credentials)
    finally:
        handover = give_to_workspace_owner(workspace)
        if handover.failed:
            print(f"::warning::evalgate could not give {handover.failed} file(s) to the workspace's owner")
    sys.exit(code)
