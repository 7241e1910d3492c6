"""The core imports nothing outside the standard library; layers import downward only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "canasta"
UPPER = ("server", "bots", "web", "env", "tui")


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module, level, lazy) for every import in a file; lazy = inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    lazy_nodes = {
        id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(f)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((a.name, 0, id(node) in lazy_nodes) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level, id(node) in lazy_nodes))
    return out


def core_files() -> list[Path]:
    return [p for p in SRC.glob("*.py")]


def test_core_imports_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names)
    for path in core_files():
        for module, level, _lazy in _imports(path):
            if level > 0 or module.startswith("canasta"):
                continue
            top = module.split(".")[0]
            assert top in stdlib or top == "__future__", f"{path.name} imports {module}"


def test_core_never_imports_upper_layers_at_module_level() -> None:
    for path in core_files():
        for module, level, lazy in _imports(path):
            name = module if level == 0 else "canasta." + module
            for layer in UPPER:
                if name.startswith(f"canasta.{layer}") or (level and module.split(".")[0] == layer):
                    # only the command-line front end may reach up, and only lazily
                    assert path.name in ("cli.py",) and lazy, f"{path.name} imports {module}"


def test_bots_do_not_import_the_server() -> None:
    for path in (SRC / "bots").rglob("*.py"):
        for module, level, _ in _imports(path):
            name = module if level == 0 else module
            assert "server" not in name.split(".") and "web" not in name.split("."), f"{path} imports {module}"


def test_core_and_bots_never_import_the_environment_or_the_terminal_game() -> None:
    files = core_files() + list((SRC / "bots").rglob("*.py"))
    for path in files:
        for module, level, lazy in _imports(path):
            parts = ("canasta." + module if level else module).split(".")
            for layer in ("env", "tui"):
                if layer in parts[:3] or parts[0] in ("pettingzoo", "gymnasium", "numpy", "textual"):
                    # only the command-line front end may reach up, and only lazily
                    assert path.name == "cli.py" and lazy, f"{path} imports {module}"


def test_the_environment_does_not_import_the_server_or_the_terminal_game() -> None:
    for path in (SRC / "env").rglob("*.py"):
        for module, _level, _ in _imports(path):
            parts = module.split(".")
            assert not {"server", "web", "tui", "textual"} & set(parts), f"{path} imports {module}"


def test_layering_check_finds_files() -> None:
    assert len(core_files()) >= 10
