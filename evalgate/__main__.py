"""`python -m evalgate` and the `evalgate` console script (pyproject.toml's entry point) run the CLI."""

import gc
import sys


def main() -> int:
    """Run the command line of this process, which ends with it.

    Importing the CLI builds ~150 modules' classes, functions and compiled patterns, all of which live
    until the process exits, and the cyclic collector walked them again and again as they were made
    (~3 ms of a one-file check's ~105 ms of CPU, median of 25 interleaved runs). So the collector is
    paused while the CLI is imported and what the import built is then frozen, out of every later
    collection: the start-up recipe of the `gc` module's own documentation (`gc.freeze`). A command's
    own garbage is collected as usual."""
    gc.disable()
    try:
        from evalgate.cli import main as run_command

        gc.freeze()
    finally:
        gc.enable()
    return run_command()


if __name__ == "__main__":
    sys.exit(main())
