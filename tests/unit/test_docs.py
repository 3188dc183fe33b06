"""The documentation as a map: the README and docs/*.md link only to what exists, the README
links every page, docs/options.md is what ``docs/generate_options.py`` writes from
``Settings.options()``, and the workflow exists once (docs/ci/github-actions.yml).

Links are checked as GitHub renders them: a relative path resolves against the page's folder,
and an ``#anchor`` into a Markdown page must be one of its headings (GitHub's slugs).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from repo_paths import ROOT  # noqa: E402

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Linked from the README but written at the merge of issue 22 (the architecture page).
#: Remove an entry once its file exists; an entry whose file exists is checked like any other.

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def _prose(text: str) -> list[str]:
    """The page's lines outside fenced code blocks, inline code removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", "", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page (repeated headings get -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The relative link targets of a page (web and mail links left out)."""
    targets = []
    for line in _prose(page.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                targets.append(target)
    return targets


def test_the_link_finder_reads_links_images_and_anchors():
    page = "see [a](docs/a.md#x), ![img](img/b.png) and [web](https://x.org); `[no](c.md)`"
    assert [t for line in _prose(page) for t in LINK.findall(line)] == [
        "docs/a.md#x", "img/b.png", "https://x.org"]
    assert slug("The same suite with no network: `replay`") == (
        "the-same-suite-with-no-network-replay")
    assert slug("Trust the judge: calibration against human labels") == (
        "trust-the-judge-calibration-against-human-labels")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_readme_links_every_docs_page():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(ROOT / "README.md")}
    pages = set((ROOT / "docs").glob("*.md")) | set((ROOT / "docs" / "ci").glob("*.yml"))
    assert not {p.resolve() for p in pages} - linked, "docs pages the README does not link"


def test_docs_options_md_is_generated_from_the_settings():
    script = ROOT / "docs" / "generate_options.py"
    spec = importlib.util.spec_from_file_location("generate_options", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.render()
    current = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    assert current == expected, (
        f"docs/options.md is stale: run `{module.COMMAND}` from the repository root")
    from pytest_faithfulness.settings import Settings

    for opt in Settings.options():
        assert f"`{opt.dest}`" in current, opt.flag


def test_the_workflow_exists_once_and_is_linked():
    """One copy: docs/ci/github-actions.yml (run by tests/test_ci_workflow.py), linked from the
    README and docs/ci.md; no page carries a copy of its jobs."""
    workflow = (ROOT / "docs" / "ci" / "github-actions.yml").read_text(encoding="utf-8")
    assert "jobs:" in workflow
    for page in (ROOT / "README.md", ROOT / "docs" / "ci.md"):
        text = page.read_text(encoding="utf-8")
        assert "github-actions.yml" in text, page.name
        assert "merge:\n    needs: shard" not in text, f"{page.name} copies the workflow"


def test_no_page_carries_a_workflow_and_each_one_names_real_options():
    """Each workflow is a file of docs/ci/ (the sharded one is run by
    tests/e2e/test_ci_workflow.py); no page carries workflow YAML of its own, and every
    ``--faithfulness-*`` flag a workflow passes is an option of the plugin."""
    import yaml

    from pytest_faithfulness.settings import Settings

    flags = {opt.flag for opt in Settings.options()}
    for page in PAGES:
        assert "runs-on:" not in page.read_text(encoding="utf-8"), f"{page.name} has a workflow"
    for workflow in sorted((ROOT / "docs" / "ci").glob("*.yml")):
        text = workflow.read_text(encoding="utf-8")
        assert yaml.safe_load(text)["jobs"], workflow.name
        used = set(re.findall(r"--faithfulness-[a-z-]*[a-z]", text))
        assert used and used <= flags, (workflow.name, sorted(used - flags))


def test_ci_runs_the_readme_test_command_exactly():
    """.ci/run's last line is the README's command 2, in the README's "Try it" code block."""
    command = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()[-1]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    try_it = readme.split("## Try it", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    assert command in try_it.splitlines()
    assert ("python3 -m venv .venv && . .venv/bin/activate && pip install . && pytest "
            "conftest_examples") in try_it.splitlines()
