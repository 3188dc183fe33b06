"""The GitHub Actions workflow (docs/ci/github-actions.yml: its one copy, linked from the README
and docs/ci.md), run here.

Every ``run:`` step of the workflow is executed as written (bash, with GitHub's
``${{ ... }}`` expressions filled in) on a small project judged by the offline judge: the
shard jobs each in their own copy of the project (as on separate runners), the artefacts and
caches carried between jobs as ``upload-artifact`` / ``download-artifact`` / ``cache`` would.
Left out: ``pip install`` (the package is installed here) and the ``gh`` call (no GitHub
here); the comment file it posts is checked instead. Two workflow runs: a push to main (no
base run yet), then a pull request compared with main's saved run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import ROOT
from scripted_model import judge_model, supports_verbatim

yaml = pytest.importorskip("yaml")

WORKFLOW = ROOT / "docs" / "ci" / "github-actions.yml"

TEST_FILE = '''
import pytest

PASSAGES = ["The {topic} plan costs 20 dollars a month. Refunds take 5 days.",
            "Support answers within 2 hours on weekdays."]
ANSWERS = {answers!r}


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"a{{i}}" for i in range(len(ANSWERS))])
def test_answer(assert_faithful, answer):
    assert_faithful(answer, PASSAGES, record_only=True)
'''

GOOD = ["The {topic} plan costs 20 dollars a month.", "Refunds take 5 days.",
        "Support answers within 2 hours on weekdays."]
WORSE = ["The {topic} plan costs 30 dollars a month.", "Refunds take 5 days.",
         "Support answers within 9 hours on weekdays."]


def _project(root: Path, answers: list[str], api_base: str) -> None:
    (root / "tests" / "faithfulness").mkdir(parents=True, exist_ok=True)
    (root / "pytest.ini").write_text(f"[pytest]\nfaithfulness_min_mean = 0.3\n"
                                     f"faithfulness_judge = openai/scripted\n"
                                     f"faithfulness_api_base = {api_base}\n"
                                     "asyncio_default_fixture_loop_scope = function\n"
                                     # the judge calls are counted (canaries: their tests;
                                     # the first filter, which would settle the verbatim
                                     # answers without a call: its tests)
                                     "faithfulness_canaries = 0\n"
                                     "faithfulness_first_filter = off\n"
                                     # a user's project runs without Hypothesis: its plugin
                                     # is about 1 s of CPU in each of the shards' processes
                                     "addopts = -p no:hypothesispytest\n")
    for topic in ("billing", "security", "support"):
        text = TEST_FILE.format(topic=topic, answers=[a.format(topic=topic) for a in answers])
        (root / "tests" / "faithfulness" / f"test_{topic}.py").write_text(text)


def _fill(command: str, values: dict[str, str]) -> str:
    def value(match: re.Match) -> str:
        name = match.group(1).strip()
        if name not in values:
            raise AssertionError(f"the test does not know ${{{{ {name} }}}}")
        return values[name]

    return re.sub(r"\$\{\{(.*?)\}\}", value, command)


def _run_steps(job: dict, cwd: Path, values: dict[str, str], env: dict[str, str],
               gate: int = 0) -> list[str]:
    """Run the job's ``run:`` steps; the gate step (``merge``) must exit ``gate``, every
    other step 0 (the steps after a failed gate have ``if: always()``, as in the file)."""
    ran = []
    for step in job["steps"]:
        command = step.get("run")
        if command is None or command.startswith("pip install") or "gh pr comment" in command:
            continue
        command = _fill(command, values)
        proc = subprocess.run(["bash", "-e", "-c", command], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=600)
        ran.append(command)
        expected = gate if "pytest-faithfulness merge" in command else 0
        assert proc.returncode == expected, f"{command}\n{proc.stdout}\n{proc.stderr}"
    return ran


def _workflow_run(tmp: Path, answers: list[str], branch: str, caches: dict[str, Path],
                  env: dict[str, str], api_base: str, gate: int = 0) -> Path:
    """One run of the workflow; ``caches`` holds the saved caches (key prefix -> folder) and
    gains this run's. Returns the merge job's folder."""
    flow = yaml.safe_load(WORKFLOW.read_text())
    env = {**env, "BRANCH": branch}
    values = {"env.BRANCH": branch, "github.run_id": "1"}
    merge_dir = tmp / f"{branch}-merge"
    for item in flow["jobs"]["shard"]["strategy"]["matrix"]["include"]:
        shard_dir = tmp / f"{branch}-shard{item['shard']}"
        _project(shard_dir, answers, api_base)
        restored = caches.get(f"cache-{branch}") or caches.get("cache-main")
        if restored:  # actions/cache/restore: this branch's, else main's
            shutil.copytree(restored, shard_dir / ".faithfulness_cache")
        _run_steps(flow["jobs"]["shard"], shard_dir,
                   {**values, "matrix.paths": item["paths"],
                    "matrix.shard": str(item["shard"])}, env)
        artefact = merge_dir / "shards" / f"shard-{item['shard']}"  # download-artifact
        for name in ("shard-runs", ".faithfulness_cache"):
            shutil.copytree(shard_dir / name, artefact / name)
    _project(merge_dir, answers, api_base)
    if caches.get("runs-main"):
        shutil.copytree(caches["runs-main"], merge_dir / ".faithfulness")
    ran = _run_steps(flow["jobs"]["merge"], merge_dir, values, env, gate)
    assert any("pytest-faithfulness merge" in c for c in ran)
    caches[f"cache-{branch}"] = merge_dir / ".faithfulness_cache"  # actions/cache/save
    caches[f"runs-{branch}"] = merge_dir / ".faithfulness"
    return merge_dir


def test_every_command_of_the_workflow_runs_and_the_comment_it_posts_is_right(tmp_path,
                                                                            chat_server):
    """The judge: the loopback server as an LLM (each answer one claim, supported when a
    passage states it word for word), so that the shards have verdict caches to merge."""
    chat_server.handler = judge_model(lambda answer: {"claims": [answer], "dropped": []},
                                      supports_verbatim)
    bin_dir = tmp_path / "bin"  # `pytest-faithfulness` and `python` as an install provides
    bin_dir.mkdir()
    script = bin_dir / "pytest-faithfulness"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pytest_faithfulness "$@"\n')
    script.chmod(0o755)
    shim = bin_dir / "python"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    caches: dict[str, Path] = {}
    main = _workflow_run(tmp_path, GOOD, "main", caches, env, chat_server.base_url)
    first_calls = len(chat_server.requests)
    assert first_calls == 3 * 3 * 2  # 3 shards x 3 answers x (decompose + verify)
    assert (main / "faithfulness.html").is_file() and (main / "comment.md").is_file()
    assert [p.name for p in (main / ".faithfulness").iterdir()] == ["0001_main.json"]
    pr = _workflow_run(tmp_path, WORSE, "feature-x", caches, env, chat_server.base_url,
                       gate=10)  # regressed against main
    # main's merged cache was restored in each shard: only the changed answers were judged
    assert len(chat_server.requests) - first_calls == 3 * 2 * 2
    comment = (pr / "comment.md").read_text()
    assert comment.startswith("<!-- pytest-faithfulness:pr-comment -->")
    assert "### Against the base run: main" in comment
    assert "#### Newly failing answers (" in comment
    assert "30 dollars" in comment  # a failing claim, quoted
    assert "regression against main: mean faithfulness dropped" in comment
    runs = sorted(p.name for p in (pr / ".faithfulness").iterdir())
    assert runs == ["0001_main.json", "0002_feature-x.json"]


def _step(job: dict, name: str) -> dict:
    return next(step for step in job["steps"] if step.get("name") == name)


def test_the_gate_runs_whatever_the_cache_steps_did_and_cache_merge_takes_benign_shards(
        tmp_path):
    """Issue 21, item 9: the merge job's cache step on benign shards (verdicts that agree in
    other words, a corrupt shard cache) exits 0, and the gate step runs ``if: always()``."""
    from pytest_faithfulness import Passage, Verdict
    from pytest_faithfulness.cache import CachedJudge

    flow = yaml.safe_load(WORKFLOW.read_text())
    merge = flow["jobs"]["merge"]
    assert "always()" in _step(merge, "One gate over every shard").get("if", "")

    class Worded:
        def __init__(self, rationale):
            self.rationale = rationale

        def verify(self, claim, passages):
            return Verdict("supported", passage_ids=["p1"], quote=passages[0].text,
                           rationale=self.rationale)

        def fingerprint(self):
            return {"kind": "worded"}

    passages = [Passage(id="p1", text="Refunds take 5 days.")]
    for shard, rationale in ((1, "p1 says so"), (2, "The passage states it."), (3, None)):
        judge = CachedJudge(Worded(rationale), tmp_path / "shards" / f"shard-{shard}"
                            / ".faithfulness_cache")
        judge.verify("Refunds take 5 days.", passages)
        judge.close()
    (tmp_path / "shards" / "shard-3" / ".faithfulness_cache" / "cache.db").write_bytes(
        b"garbage" * 200)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "pytest-faithfulness"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pytest_faithfulness "$@"\n')
    script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "FAITHFULNESS_CACHE_KEY"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    command = _step(merge, "Merge the shards' verdict caches")["run"]
    proc = subprocess.run(["bash", "-e", "-c", command], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "shard-3/.faithfulness_cache skipped" in proc.stdout
    assert "merged 2 cache(s): 1 entries copied, 1 already there (1 worded differently" \
        in proc.stdout
    assert "entries: 1 (1 verdicts: 1 supported" in proc.stdout
