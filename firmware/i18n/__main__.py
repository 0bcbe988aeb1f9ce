"""``python -m firmware.i18n``: compile every language's catalog (:func:`.catalogs.build`).

Run by ``scripts/_venv.sh`` at each install and update; quiet unless a catalog cannot be read,
which is one line naming the file and a non-zero exit.
"""

from __future__ import annotations

import sys

from .catalogs import build


def main() -> int:
    """Build the catalogs; 1 with one line if a ``.po`` cannot be read."""
    try:
        build()
    except (OSError, ValueError) as error:
        print(f"error: the language catalogs cannot be built: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
