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


# ---------------------------------------------------------------------------- the import graph
# Layers, lowest first: the core (src/canasta/*.py but the application modules), the bots, the
# server; the web client is static files.  The command line (cli.py, __main__.py) is an
# application above all of them.  Every import counts here, also those under TYPE_CHECKING and
# inside functions: a circle through a lazy import is still a circle.

APPLICATION = ("cli", "__main__")
# the research environment and the terminal game sit beside the server: above the bots
LAYER_RANK = {"core": 0, "bots": 1, "server": 2, "env": 2, "tui": 2, "application": 3}


def _module_name(path: Path) -> str:
    parts = ["canasta", *path.relative_to(SRC).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:]) if "." in name else Path()
    return (SRC / rel).with_suffix(".py").is_file() or (SRC / rel / "__init__.py").is_file()


def _targets(path: Path) -> set[str]:
    """The canasta modules a file imports (relative imports resolved)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "canasta")
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
                if base.split(".")[0] != "canasta":
                    continue
            else:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                if node.module:
                    base = f"{base}.{node.module}"
            subs = [f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")]
            out.update(subs or [base])
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    return {_module_name(p): _targets(p) for p in SRC.rglob("*.py")}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ("bots", "server", "env", "tui"):
        return parts[1]
    if len(parts) > 1 and parts[1] in APPLICATION:
        return "application"
    return "core"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as a path ``[a, b, ..., a]``, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_find_cycle_finds_a_circle_and_accepts_a_tree() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_core_has_no_import_cycle() -> None:
    graph = import_graph()
    core = {m: {t for t in ts if layer_of(t) == "core"} for m, ts in graph.items() if layer_of(m) == "core"}
    # The package itself (canasta/__init__.py) gathers the public API: nothing in the core imports it.
    for module, targets in core.items():
        assert "canasta" not in targets or module == "canasta", f"{module} imports the package canasta"
    assert len(core) >= 18
    cycle = find_cycle(core)
    assert cycle is None, "import cycle in the core: " + " -> ".join(cycle or [])


def test_the_bots_have_no_import_cycle() -> None:
    graph = import_graph()
    bots = {m: {t for t in ts if layer_of(t) == "bots"} for m, ts in graph.items() if layer_of(m) == "bots"}
    cycle = find_cycle(bots)
    assert cycle is None, "import cycle in the bots: " + " -> ".join(cycle or [])


def test_layers_import_downward_only() -> None:
    """core <- bots <- server <- application (cli); the web client holds no Python."""
    bad = []
    for module, targets in import_graph().items():
        mine = LAYER_RANK[layer_of(module)]
        for target in targets:
            if LAYER_RANK[layer_of(target)] > mine:
                bad.append(f"{module} imports {target}")
    assert not bad, bad


def test_nothing_imports_the_command_line() -> None:
    importers = [m for m, ts in import_graph().items() if any(layer_of(t) == "application" for t in ts)]
    assert importers in ([], ["canasta.__main__"]), importers


def test_layer_of_places_each_package() -> None:
    assert layer_of("canasta.state") == "core" and layer_of("canasta") == "core"
    assert layer_of("canasta.bots.search") == "bots" and layer_of("canasta.server.table") == "server"
    assert layer_of("canasta.cli") == "application"
