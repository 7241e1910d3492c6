"""The core engine imports nothing outside the standard library."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import canasta

CORE = Path(canasta.__file__).parent
CORE_MODULES = ["__init__", "errors", "cards", "rules", "actions", "state", "legal", "scoring", "view",
                "resample", "game", "position",
                # the split of state.py (issue 8): data, dealing, checking, applying, solvers, results
                "hand", "deal", "checks", "moves", "going_out", "pickup", "results", "describe"]


def test_core_modules_import_only_the_standard_library():
    bad = []
    for name in CORE_MODULES:
        path = CORE / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    targets = [node.module] if node.module else [a.name for a in node.names]
                    if any(t.split(".")[0] not in CORE_MODULES for t in targets):
                        bad.append(f"{name}.py: from .{node.module}")
                    continue
                names = [node.module or ""]
            else:
                continue
            for full in names:
                top = full.split(".")[0]
                if top not in sys.stdlib_module_names and top != "__future__":
                    bad.append(f"{name}.py: {full}")
    assert not bad, bad


def test_importing_canasta_loads_no_third_party_module():
    code = (
        "import sys, json; before = set(sys.modules); import canasta; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )  # modules loaded by site (.pth files) before the import are not the engine's doing
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    tops = {m.split(".")[0] for m in json.loads(out)}
    foreign = sorted(t for t in tops if t not in sys.stdlib_module_names and t != "canasta" and not t.startswith("_"))
    assert not foreign, foreign
