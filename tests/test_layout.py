"""The package tree shows the pipeline: every import, including those inside functions and under
TYPE_CHECKING, points down the stages, never up or sideways; no two modules import each other, within
a stage either; and the package root stays the spine."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "evalgate"

# Lowest first. A module may import its own stage and any stage listed before it; nothing else.
# Within the base, the data types (usage, rubric and judgement below results, which holds them) and
# the YAML loader sit below the configuration.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("evalgate", "evalgate.yamlsafe"),
    ("evalgate.usage", "evalgate.rubric", "evalgate.judgement"),
    ("evalgate.results",),
    ("evalgate.config", "evalgate.discover"),
    ("evalgate.document",),
    ("evalgate.checks",),
    ("evalgate.judging",),
    ("evalgate.gate", "evalgate.report"),
    ("evalgate.run",),
    ("evalgate.fix",),
    ("evalgate.validity",),
    ("evalgate.github",),
    ("evalgate.cli",),
    ("evalgate.__main__",),
)
ROOT_SPINE_LIMIT = 8  # plain modules at the package root beside __init__ and __main__


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# A root module's data directory belongs to it: evalgate/rubrics/ holds the rubric's data, the packs
# (YAML) and the checks' params types (params.py).
DATA_OF = {"evalgate.rubrics": "evalgate.rubric"}


def _unit(module: str) -> str:
    """The stage a module belongs to: its sub-package (or the root module whose data it is), or the
    root module itself."""
    parts = module.split(".")
    if ".".join(parts[:2]) in DATA_OF:
        return DATA_OF[".".join(parts[:2])]
    if len(parts) == 1:
        return "evalgate"
    candidate = ".".join(parts[:2])
    return candidate


def _layer(unit: str) -> int:
    for i, layer in enumerate(LAYERS):
        if unit in layer:
            return i
    raise AssertionError(f"{unit} is in no layer of tests/test_layout.py: place it")


@functools.cache
def _modules(package_dir: Path) -> frozenset[str]:
    return frozenset(_module_name(p, package_dir) for p in package_dir.rglob("*.py"))


def _imports(path: Path, package_dir: Path = PACKAGE) -> list[tuple[int, str]]:
    module = _module_name(path, package_dir)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "evalgate"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "evalgate":
                continue
            found.append((node.lineno, target))
            # `from evalgate import run`, `from evalgate.rubrics import params` import those modules
            found += [
                (node.lineno, f"{target}.{a.name}")
                for a in node.names
                if f"{target}.{a.name}" in _modules(package_dir)
            ]
    return found


def _edges() -> list[tuple[str, int, str]]:
    return [
        (_module_name(p), line, target) for p in sorted(PACKAGE.rglob("*.py")) for line, target in _imports(p)
    ]


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """The lines of `if TYPE_CHECKING:` blocks: imports there name types for annotations and never
    run, which is how a module names a type of a module that imports it."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def _module_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports when it runs (at its top or inside a function)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(package_dir.rglob("*.py")):
        module = _module_name(path, package_dir)
        skipped = _type_checking_lines(ast.parse(path.read_text(encoding="utf-8")))
        for line, target in _imports(path, package_dir):
            if line not in skipped and target != module:
                graph.setdefault(module, set()).add(target)
    return graph


def _circles(package_dir: Path) -> list[str]:
    """Every import circle between the package's modules, each as `a -> b -> a`."""
    graph = _module_graph(package_dir)
    found: list[str] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_every_import_points_down_the_stages() -> None:
    upward = []
    for module, line, target in _edges():
        src, dst = _unit(module), _unit(target)
        if src == dst or target == "evalgate":
            continue
        if _layer(dst) >= _layer(src):
            upward.append(f"{module}:{line} imports {target} ({dst} is not below {src})")
    assert not upward, "\n".join(upward)


def test_no_circle_between_stages() -> None:
    graph: dict[str, set[str]] = {}
    for module, _line, target in _edges():
        src, dst = _unit(module), _unit(target)
        if src != dst and target != "evalgate":
            graph.setdefault(src, set()).add(dst)
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            assert seen.get(nxt) != 1, "import circle: " + " -> ".join([*path, node, nxt])
            if nxt not in seen:
                visit(nxt, [*path, node])
        seen[node] = 2

    for node in sorted(graph):
        if node not in seen:
            visit(node, [])


def test_no_circle_between_modules() -> None:
    # within a stage as well: a module and one it imports, even inside a function, never import each
    # other (rubric.py and the generated rubrics/compiled.py once did)
    assert not _circles(PACKAGE), "import circles:\n" + "\n".join(_circles(PACKAGE))


def test_a_planted_circle_within_a_stage_is_found(tmp_path: Path) -> None:
    package = tmp_path / "evalgate"
    (package / "rubrics").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rubric.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from evalgate.gate import Verdict\n"
        "def load():\n    from evalgate.rubrics.compiled import PACKS\n    return PACKS\n"
    )
    (package / "rubrics" / "__init__.py").write_text("")
    (package / "rubrics" / "compiled.py").write_text("from evalgate.rubric import *\nPACKS = {}\n")
    (package / "gate.py").write_text("from evalgate import rubric\n")  # a type-only import back: no circle
    assert _circles(package) == ["evalgate.rubric -> evalgate.rubrics.compiled -> evalgate.rubric"]
    (package / "rubrics" / "compiled.py").write_text("PACKS = {}\n")
    assert _circles(package) == []


def test_document_imports_nothing_above_it() -> None:
    allowed = {"evalgate.document", "evalgate.yamlsafe"}
    bad = [
        f"{m}:{line} imports {t}"
        for m, line, t in _edges()
        if m.startswith("evalgate.document") and not any(t == a or t.startswith(a + ".") for a in allowed)
    ]
    assert not bad, "\n".join(bad)


def test_the_document_types_depend_on_no_parser() -> None:
    """The model imports no parser; only a leaf helper, one that imports nothing of the package
    (`prose`, for the Executive Summary the model reads when asked)."""
    edges = _edges()
    importers = {m for m, _line, _t in edges}
    targets = {t for m, _line, t in edges if m == "evalgate.document.model"}
    assert not targets & importers, f"evalgate.document.model imports {sorted(targets & importers)}"


def test_the_root_holds_only_the_spine() -> None:
    plain = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in {"__init__", "__main__"})
    assert len(plain) <= ROOT_SPINE_LIMIT, plain


@pytest.mark.parametrize("package", sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py")))
def test_every_stage_says_what_it_takes_and_gives(package: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8")))
    assert doc, f"evalgate/{package}/__init__.py has no docstring"
    assert "Takes" in doc and "gives" in doc, f"evalgate/{package}: say what the stage takes and gives"


def test_the_layout_test_sees_imports_inside_functions() -> None:
    # the rule would be empty if the walk missed the lazy imports the package relies on
    lazy = [(m, t) for m, _line, t in _edges() if m == "evalgate.cli" and t == "evalgate.run"]
    assert lazy, "evalgate.cli imports evalgate.run inside cmd_check; the walk must find it"
