"""``python -m bench ...`` is ``samestory bench ...``."""

from __future__ import annotations

import sys

from service.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
