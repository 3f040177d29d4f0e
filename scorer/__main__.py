"""``python -m scorer settle FILE [--json]``."""

import sys

from .cli import main

sys.exit(main())
