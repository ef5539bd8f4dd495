"""The default-bindings table of docs/controls.md, made from config/controls.toml.

    python -m tools.bindings_table [--config DIR]     print the table
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common.errors import UserError
from game.config import CONFIG_DIR
from game.input.bindings import bindings_table
from game.window_config import load_window_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bindings_table",
                                     description="Print the default bindings table.")
    parser.add_argument("--config", type=Path, default=CONFIG_DIR, metavar="DIR")
    args = parser.parse_args(argv)
    try:
        print(bindings_table(load_window_config(args.config).controls), end="")
    except UserError as error:
        print(f"tank-battle: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
