"""``python -m firmware.cli``: the ``baccarat`` command."""

import sys

from . import main

sys.exit(main())
