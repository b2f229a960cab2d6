"""`python -m evalgate` runs the CLI."""

import sys

from evalgate.cli import main

sys.exit(main())
