"""``python -m cli``: the ``manille`` command, run from a checkout without the console script."""

import sys

from cli.main import main

sys.exit(main())
