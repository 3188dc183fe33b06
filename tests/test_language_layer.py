"""The layers of the offline checks stay layered (issue 22): ``language`` imports no trust rule and
no judge, ``trust`` no judge, nothing imports a private name of another module, no module of
these layers grows past 700 lines. Read from the source (AST), nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_faithfulness"
LAYERS = ("language", "trust", "judges/offline")


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


@pytest.mark.parametrize(
    "path", _modules(*(f"pytest_faithfulness/{layer}" for layer in LAYERS), "training", "benchmarks"),
    ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_is_imported_across_modules(path):
    private = [f"{module}.{name}" for module, names in _imported(path) for name in names
               if name.startswith("_") and not name.startswith("__")]
    assert private == [], path


@pytest.mark.parametrize("path", _modules(*(f"pytest_faithfulness/{layer}" for layer in LAYERS)),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_of_the_layers_is_over_700_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700
