"""`python -m ltm ...`, the same as the `ltm` command."""

import sys

from .cli import main

sys.exit(main())
