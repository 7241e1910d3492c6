"""``canasta play``: a match against the computer in the terminal (``pip install 'canasta[tui]'``)."""

from __future__ import annotations

import argparse
import sys

INSTALL = "canasta play needs Textual: pip install 'canasta[tui]'  (or: pip install textual)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``canasta play``."""
    from .. import PRESETS
    from ..bots import LEVELS

    p.add_argument("--preset", default="classic", choices=list(PRESETS))
    p.add_argument("--level", default="normal", choices=list(LEVELS), help="the opponents' level")
    p.add_argument("--seed", type=int, help="seed of the deal (for replaying a match)")
    p.add_argument("--target", choices=["5000", "2500", "1500", "one_hand"], help="match target (default: the preset's)")


def main(args: argparse.Namespace) -> int:
    """Run the terminal game; exit 2 with install advice when Textual is missing."""
    try:
        import textual  # noqa: F401
    except ImportError:
        print(INSTALL, file=sys.stderr)
        return 2
    from .app import CanastaApp
    from .session import Session

    target = None if args.target is None else args.target if args.target == "one_hand" else int(args.target)
    CanastaApp(Session(preset=args.preset, level=args.level, seed=args.seed, target=target)).run()
    return 0
