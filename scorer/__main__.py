"""``python -m scorer settle FILE [--json]``."""

import sys

from .cli.main import main

sys.exit(main())
