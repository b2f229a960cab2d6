"""The action's container entrypoint: hand the runner's environment to evalgate.github.action.main.

Everything else (inputs, git trust, tokens, the run, publishing, the exit code) lives in
evalgate/github/action.py, so it is tested as ordinary code; this file only maps the process to it.
"""

import os
import sys

from evalgate.github.action import main

if __name__ == "__main__":
    sys.exit(main(os.environ))
