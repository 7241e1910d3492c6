"""Build the optional compiled core with mypyc, from the same typed source (nothing is edited).

    python bench/mypyc_build.py [--out build/mypyc]
    PYTHONPATH=build/mypyc python bench/engine.py --json       # the compiled core
    python bench/engine.py --json                              # the default pure-Python core

The whole package is copied into ``--out`` and the hot core modules (and the bots' policy and
search) are compiled there in place: Python prefers the compiled extension next to each
``.py``.  The server and the web client come along uncompiled, so
``PYTHONPATH=build/mypyc canasta serve`` (or ``python -m canasta serve``) runs the server on
the compiled core and bots (``bench/load.py`` passes its environment on to the servers).  The pure-Python package stays the default install;
``tests/core/test_compiled.py`` replays the golden records on the build when
``CANASTA_COMPILED`` names it.  Needs mypy (it ships mypyc) and a C compiler.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the modules of the core that play a hand (cards to views); the rest stays interpreted
COMPILED = (
    "cards", "errors", "rules", "actions", "results", "hand", "scoring", "going_out", "checks",
    "pickup", "legal", "moves", "deal", "view", "state", "resample",
    # the computer players' evaluation, policy and search (Expert's rollouts run there)
    "bots/common", "bots/evaluate", "bots/policy", "bots/search",
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--out", default=str(ROOT / "build" / "mypyc"))
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copytree(
        ROOT / "src" / "canasta", out / "canasta", ignore=shutil.ignore_patterns("__pycache__")
    )
    files = [f"canasta/{m}.py" for m in COMPILED]
    cmd = [sys.executable, "-m", "mypyc", *files]
    print("building in", out, ":", " ".join(cmd[2:]), flush=True)
    done = subprocess.run(cmd, cwd=out)
    if done.returncode:
        return done.returncode
    shutil.rmtree(out / "build", ignore_errors=True)
    print(f"compiled core ready: PYTHONPATH={out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
