"""The package keeps the shape docs/architecture.md draws (issue 22), read from the source (AST),
nothing imported: ``language`` imports no trust rule and no judge, ``trust`` no judge; only the
pytest face (``plugin/``) imports pytest; no private name is imported across modules (in the
package, ``training/`` and ``benchmarks/``); no module is over 700 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from repo_paths import ROOT  # noqa: E402

PACKAGE = ROOT / "pytest_faithfulness"
#: Where names are checked: the whole package, and the scripts that use it.
CHECKED = ("pytest_faithfulness", "training", "benchmarks")
#: The pytest face: the only modules that may import pytest.
PYTEST_FACE = "pytest_faithfulness.plugin"


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _imported(path: Path) -> list[tuple[str, list[str]]]:
    """(absolute module, names) of every ``from ... import ...`` in ``path``, lazy ones too."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.append((module, [a.name for a in node.names]))
    return found


@pytest.mark.parametrize("path", _modules("pytest_faithfulness/language"), ids=lambda p: p.name)
def test_the_language_layer_imports_no_rule_and_no_judge(path):
    for module, _ in _imported(path):
        assert not module.startswith(("pytest_faithfulness.trust", "pytest_faithfulness.judges",
                                      "pytest_faithfulness.pipeline")), (path.name, module)


#: The one exception: the alignment reads the rule decomposer's sentence tests (non-assertive
#: text, elliptical claims, Markdown markup), wherever the decomposer lives.
DECOMPOSER = ("pytest_faithfulness.decomposition", "pytest_faithfulness.judges.offline.decomposer")


@pytest.mark.parametrize("path", _modules("pytest_faithfulness/trust"), ids=lambda p: p.name)
def test_the_trust_layer_imports_no_judge(path):
    for module, _ in _imported(path):
        assert not module.startswith("pytest_faithfulness.judges") \
            or module.startswith(DECOMPOSER), (path.name, module)


def _package_modules() -> set[str]:
    """Every module of the package by dotted name (``_loop``, a module private to the package,
    is imported as a module, not as a private name of another module)."""
    return {".".join(p.relative_to(ROOT).with_suffix("").parts) for p in _modules(CHECKED[0])}


@pytest.mark.parametrize("path", _modules(*CHECKED), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_is_imported_across_modules(path):
    modules = _package_modules()
    private = [f"{module}.{name}" for module, names in _imported(path) for name in names
               if name.startswith("_") and not name.startswith("__")
               and f"{module}.{name}" not in modules]
    assert private == [], path


def _imports_pytest(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(
                a.name.split(".")[0] in ("pytest", "_pytest") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level \
                and (node.module or "").split(".")[0] in ("pytest", "_pytest"):
            return True
    return False


@pytest.mark.parametrize("path", _modules("pytest_faithfulness"),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_pytest_face_imports_pytest(path):
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if module == PYTEST_FACE or module.startswith(PYTEST_FACE + "."):
        return
    assert not _imports_pytest(path), f"{module} imports pytest: the core is usable without it"


@pytest.mark.parametrize("path", _modules("pytest_faithfulness"),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_700_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700
