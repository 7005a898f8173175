"""Locks on the house's structure: no module imports from a layer above its own, and
every exception class the package defines is classified (a user's error, or one of the few
signals that never reach a user as an error), found by walking the package, not from a list."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import catena_zero
from catena_zero.errors import UserError

PACKAGE = Path(catena_zero.__file__).resolve().parent

# The layers, lowest first, as docs/DESIGN.md draws them: the rules (game), the config, the network and
# search, the trained-network files, self-play, training, the players, then eval, web and terminal, the
# commands and the CLI. A module may import its own package and any
# package of a lower layer; packages of one layer do not import each other.
LAYERS = [
    {"errors", "messages", "books", "bots"},  # books/ and bots/: data (the shipped files) and nothing else
    {"fileio"},
    {"game"},
    {"config", "evalfn"},
    {"net", "search"},
    {"artifacts"},  # the trained-network files and the run folder's layout (one loader: load_network)
    {"selfplay"},
    {"train"},
    {"bot"},
    {"eval", "web", "terminal"},  # terminal/: the game in a terminal (play), as web/ is in a browser
    {"commands"},
    {"cli"},
]
LAYER = {name: level for level, names in enumerate(LAYERS) for name in names}

# Exceptions that are not a user's error, and why: each is caught before it reaches a person.
SIGNALS = {
    "catena_zero.game.rules.GameNotOver": "a caller's bug: the score of a game that is not over",
    "catena_zero.train.driver.NothingToDo": "an outcome: `train --resume` says there is nothing to do, status 0",
    "catena_zero.web.sessions.ApiError": "an HTTP answer of the page's API (status and message)",
    "catena_zero.terminal.person.Abandoned": "the person at the terminal quit: play_in_terminal ends the game unfinished",
    "catena_zero.terminal.person.UndoAsked": "the person took moves back: play_in_terminal shows the board again",
}


def _part(module: str) -> str:
    """The top-level part of catena_zero a module belongs to ("game" for catena_zero.game.vec.env)."""
    return module.split(".")[1] if "." in module else module


def _is_module(name: str) -> bool:
    place = PACKAGE.parent.joinpath(*name.split("."))
    return place.with_suffix(".py").is_file() or (place / "__init__.py").is_file()


def _imports(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in the file at ``path`` of the package (its
    source, or ``text`` read as if it were there), relative ones resolved, in any block."""
    module = "catena_zero." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    if module.endswith(".__init__"):
        module = module[: -len(".__init__")]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text() if text is None else text, str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from .. import x`: x is a module when there is one by that name, else a name of the package.
            targets = [target] if node.module or not node.level else \
                [f"{target}.{a.name}" if _is_module(f"{target}.{a.name}") else target for a in node.names]
            found += [(node.lineno, t) for t in targets]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, t) for line, t in found if t == "catena_zero" or t.startswith("catena_zero.")]


def test_no_module_imports_from_a_layer_above_its_own():
    parts = {_part("catena_zero." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts))
             for p in PACKAGE.rglob("*.py")} - {"__init__"}
    unplaced = sorted(parts - set(LAYER))
    assert not unplaced, f"modules or packages with no layer (add them to LAYERS): {unplaced}"
    wrong, checked = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        own = _part("catena_zero." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
        if own == "__init__":
            continue
        for line, target in _imports(path):
            other = _part(target)
            if target == "catena_zero" or other == own or other == "__init__":
                continue
            checked += 1
            if LAYER[other] >= LAYER[own]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} ({own}, layer {LAYER[own]}) imports "
                             f"{target} ({other}, layer {LAYER[other]})")
    assert checked > 200, checked  # the walk saw the package's imports between its parts
    assert not wrong, "imports that run up (or across) the layers:\n" + "\n".join(wrong)


def test_the_layer_check_sees_an_import_that_runs_up():
    """The check itself: game/rules.py with a relative import of train/ added is caught."""
    place = PACKAGE / "game" / "rules.py"
    targets = [t for _, t in _imports(place, place.read_text() + "\nfrom ..train.replay import ReplayBuffer\n")]
    assert "catena_zero.train.replay" in targets and LAYER[_part("catena_zero.train.replay")] > LAYER["game"]
    assert "catena_zero.game.options" in [t for _, t in _imports(PACKAGE / "game" / "match.py")]  # from .options


def test_every_exception_class_of_the_package_is_a_user_error_or_a_named_signal():
    found = {}
    for info in pkgutil.walk_packages(catena_zero.__path__, "catena_zero."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = obj
    assert len(found) >= 15  # the walk found the package's classes (UserError and its family)
    unclassified = [name for name, cls in found.items() if not issubclass(cls, UserError) and name not in SIGNALS]
    assert not unclassified, f"exception classes that are neither a UserError nor a named signal: {unclassified}"
    for name, cls in found.items():
        if issubclass(cls, UserError):
            assert issubclass(cls, ValueError), name  # callers that caught ValueError still do
    assert set(SIGNALS) <= set(found), "a signal listed here no longer exists"


def _module_of(path: Path) -> str:
    module = "catena_zero." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    return module[: -len(".__init__")] if module.endswith(".__init__") else module


def _import_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return circles


def _module_edges(extra: dict[Path, str] | None = None) -> dict[str, set[str]]:
    """module -> the package's modules it imports, at module level or under TYPE_CHECKING (an
    import inside a function runs late on purpose and is left out); ``extra``: text added to a file."""
    edges: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text() + (extra or {}).get(path, "")
        inside_functions = {line for node in ast.walk(ast.parse(text))
                            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
        targets = {t for line, t in _imports(path, text) if line not in inside_functions and _is_module(t)}
        edges[_module_of(path)] = targets - {_module_of(path)}
    return edges


def test_no_two_modules_import_each_other_even_in_a_circle():
    """The house's rule "no files that import each other in a circle", type-only imports included:
    a circle means two modules that cannot be read (or changed) apart."""
    edges = _module_edges()
    assert sum(len(t) for t in edges.values()) > 300  # the walk saw the package's imports
    circles = _import_circles(edges)
    assert not circles, "modules that import each other in a circle:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_circle_check_sees_a_type_only_import_back():
    """The check itself: game/spec.py importing game/options.py (which imports it) under
    TYPE_CHECKING is a circle."""
    back = "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .options import GameConfig\n"
    circles = _import_circles(_module_edges({PACKAGE / "game" / "spec.py": back}))
    assert ["catena_zero.game.options", "catena_zero.game.spec"] in circles


def test_every_package_docstring_names_each_of_its_modules():
    """A package's docstring is its map: each module (and sub-package) in it is named there (the
    top level's map is docs/DESIGN.md's table, which test_readme checks)."""
    missing = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        folder = init.parent
        if folder == PACKAGE:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        parts = [p.stem for p in folder.glob("*.py") if p.name != "__init__.py"]
        parts += [p.name for p in folder.iterdir() if (p / "__init__.py").is_file()]
        missing += [f"{folder.relative_to(PACKAGE.parent)}: {name}" for name in sorted(parts)
                    if not re.search(rf"\b{name}\b", doc)]
    assert not missing, "not named in their package's docstring:\n" + "\n".join(missing)
