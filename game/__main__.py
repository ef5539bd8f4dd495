"""``python -m game``: the game's program, the same as the ``tank-battle`` command and
``python main.py`` (a hosted server and the benchmarks start it this way)."""

import sys

from game.cli import main

if __name__ == "__main__":
    sys.exit(main())
