"""The package keeps the shape docs/architecture.md draws (issue 22), read from the source (AST),
nothing imported: imports point up the layers (``LAYERS``, with the named ``EXCEPTIONS``); only the
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


#: The layers of docs/architecture.md, top first, as module prefixes under the package: a
#: module imports from its own layer and the layers above it, never from a layer below.
LAYERS = (
    ("records", "errors", "inputs", "canary_report", "trace_records"),
    ("_loop", "accounting", "ratelimit", "redaction", "mutants"),
    ("language",),
    ("trust",),
    ("judges",),
    ("cache", "cachemerge", "checkmemo"),
    ("pipeline", "conversation", "canaries", "traces"),
    ("run", "reports", "runs", "calibration"),
    ("plugin", "assertion", "hookspecs", "cli", "settings", "__main__", "__init__"),
)

#: The named exceptions (docs/architecture.md): the alignment reads the offline decomposer's
#: sentence tests, and the live progress printer uses the reports' printable text.
EXCEPTIONS = {
    ("trust.alignment", "judges.offline.decomposer"),
    ("trust.answer_spans", "judges.offline.decomposer"),
    ("judges.progress", "reports.text"),
}


def _layer(module: str) -> int:
    rest = module.split(".", 1)[1] if "." in module else "__init__"
    for i, prefixes in enumerate(LAYERS):
        if any(rest == p or rest.startswith(p + ".") for p in prefixes):
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


@pytest.mark.parametrize("path", _modules("pytest_faithfulness"),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_up_the_layers(path):
    source = _dotted(path)
    modules = _package_modules()
    wrong = []
    for module, names in _imported(path):
        if not module.startswith("pytest_faithfulness"):
            continue
        for name in names:
            target = f"{module}.{name}" if f"{module}.{name}" in modules else module
            if target == "pytest_faithfulness" or _layer(target) <= _layer(source):
                continue
            pair = (source.split(".", 1)[1], target.split(".", 1)[1])
            if not any(pair[0].startswith(a) and pair[1].startswith(b) for a, b in EXCEPTIONS):
                wrong.append(target)
    assert wrong == [], f"{source} imports from a lower layer: {sorted(set(wrong))}"


def _package_modules() -> set[str]:
    """Every module of the package by dotted name (``_loop``, a module private to the package,
    is imported as a module, not as a private name of another module)."""
    return {_dotted(p) for p in _modules(CHECKED[0])}


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
