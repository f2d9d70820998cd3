"""`python -m hub` runs the boardcast command."""

import sys

from hub.cli import main

sys.exit(main())
