"""`python -m ltm ...`, the same as the `ltm` command."""

import sys

from .main import main

sys.exit(main())
