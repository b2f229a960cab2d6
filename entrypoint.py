"""The action's container entrypoint: hand the runner's environment to evalgate.github.action.main.

Everything else (inputs, git trust, tokens, the run, publishing, the exit code) lives in
evalgate/github/action.py, so it is tested as ordinary code; this file only maps the process to it,
and, because the container runs as root, gives what the run wrote into the workspace to the
workspace's owner afterwards (evalgate/github/ownership.py).
"""

import os
import sys
from pathlib import Path

from evalgate.github.action import main
from evalgate.github.ownership import give_to_workspace_owner

if __name__ == "__main__":
    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or os.getcwd())
    try:
        code = main(os.environ)
    finally:
        handover = give_to_workspace_owner(workspace)
        if handover.failed:
            print(f"::warning::evalgate could not give {handover.failed} file(s) to the workspace's owner")
    sys.exit(code)
