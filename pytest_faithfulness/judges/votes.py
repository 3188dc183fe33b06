"""Judge noise under control: several verdicts per claim, and panels of judges.

``VotingJudge(judge, votes=N)`` (``--faithfulness-votes N``) follows the judge protocol. A
claim whose first verdict is ``supported`` keeps it; a claim first judged *not* supported is
judged again, up to ``N`` verdicts in all, and the majority label stands. Asking again only
after a "not supported" keeps the cost where a red build comes from: a build goes red on the
claims that are not supported, so those are the verdicts a single unlucky sample must not
decide alone.

``PanelJudge(members)`` (``--faithfulness-panel``) asks every member judge (each possibly a
``VotingJudge``) about every claim; the majority over the members' verdicts stands and each
member's verdicts are kept.

Rules (both):

* **Majority, ties fail closed.** ``supported`` stands only when more than half of the votes
  are ``supported``; otherwise the claim is not supported, labelled ``contradicted`` when
  more votes say so than ``unsupported``, else ``unsupported``. Two votes that split are not
  supported.
* **Stop when decided.** A claim first judged not supported is always judged a second time;
  after that a ``VotingJudge`` stops asking once the remaining votes cannot change whether
  ``supported`` has a majority (with ``N = 3``, two "not supported" votes end it). With
  ``N = 2`` a second vote can never overturn the first (a split is a tie), but it shows the
  claim is unstable.
* **Every vote is checked.** Each verdict goes through ``verification.check_verdict`` against
  the passages it was given before it counts: a ``supported`` vote whose quote is not in the
  cited passage counts as ``unsupported`` (fail closed). The verdict returned is the judge's
  own verdict of a vote with the majority label, so the pipeline checks it again and keeps
  its note as for any verdict.
* **Errors are errors.** A vote that raises (transport, reply format, a cache miss in replay
  mode) raises out of ``verify``: the pipeline records the answer as ``error``. No vote is
  dropped.
* **Later votes can differ.** Vote ``k`` (``k >= 2``) gets the passages rotated by ``k - 1``
  places (passage ids unchanged), so every passage leads the list in some vote: a verdict
  that depends on where the evidence sits (models weigh the start and the end of a context
  more, Liu et al. 2024, "Lost in the Middle") shows up as disagreement. And it asks the
  judge's ``for_vote(k)`` variant when the judge has one: ``LiteLLMJudge.for_vote`` samples at
  ``VOTE_TEMPERATURE`` (0.7, as in self-consistency sampling, Wang et al. 2023), since at
  temperature 0 a model mostly repeats itself and the vote would be no second opinion;
  ``cache.CachedJudge.for_vote`` keys each vote apart (the vote number joins the
  fingerprint), so every vote is its own cache entry and a cached run replays every vote.
* **Deterministic judges are asked once** (a judge whose ``deterministic`` attribute is true,
  e.g. the offline judge): asking again would give the same verdict.

The votes of each claim reach the pipeline through ``collect_votes`` (a context variable):
``pipeline`` puts them in ``ClaimResult.votes`` and sets ``ClaimResult.unstable`` when they
disagree. Nothing here imports pytest or litellm.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .. import _loop
from ..records import Passage, Verdict, Vote
from ..verification import check_verdict
from .protocol import as_verdict, call_judge, judge_description

#: The sampling temperature of votes 2..N for judges that sample (``LiteLLMJudge.for_vote``).
VOTE_TEMPERATURE = 0.7

_SINK: contextvars.ContextVar[list[Vote] | None] = contextvars.ContextVar(
    "faithfulness_votes", default=None)


@contextmanager
def collect_votes() -> Iterator[list[Vote]]:
    """Collect the votes cast for the verify call(s) made inside the block (in this context
    and the tasks and threads started from it) into the list it yields."""
    votes: list[Vote] = []
    token = _SINK.set(votes)
    try:
        yield votes
    finally:
        _SINK.reset(token)


def _publish(votes: Sequence[Vote]) -> None:
    sink = _SINK.get()
    if sink is not None:
        sink.extend(votes)


def majority(labels: Sequence[str]) -> str:
    """The label that stands over ``labels`` (see the module docstring: ``supported`` needs
    more than half; ties are not supported).

    Raises:
        ValueError: no labels.
    """
    if not labels:
        raise ValueError("no votes")
    if 2 * labels.count("supported") > len(labels):
        return "supported"
    return ("contradicted" if labels.count("contradicted") > labels.count("unsupported")
            else "unsupported")


def rotated(passages: Sequence[Passage], vote: int) -> list[Passage]:
    """The passages for vote ``vote`` (1-based): rotated left by ``vote - 1`` places."""
    passages = list(passages)
    if not passages:
        return passages
    shift = (vote - 1) % len(passages)
    return passages[shift:] + passages[:shift]


def vote_variant(judge: Any, vote: int) -> Any:
    """The judge to ask for vote ``vote``: the judge itself for vote 1, else its
    ``for_vote(vote)`` when it has one, else the judge itself."""
    make = getattr(judge, "for_vote", None)
    if vote == 1 or not callable(make):
        return judge
    return make(vote)


def judge_name(judge: Any) -> str:
    """A short name for a judge in the votes: its ``model`` (a litellm model string) or its
    ``name``, looking through wrappers (``.judge``); else its description."""
    seen = judge
    for _ in range(8):
        own = vars(seen) if hasattr(seen, "__dict__") else {}
        for attr in ("model", "name"):
            value = own.get(attr, getattr(type(seen), attr, None))
            if isinstance(value, str) and value:
                return value
        seen = own.get("judge")
        if seen is None:
            break
    return judge_description(judge)


def _samples(judge: Any) -> bool:
    """Whether a judge (through wrappers) samples its later votes at ``VOTE_TEMPERATURE``: a
    judge with a ``temperature`` and a ``for_vote`` (``LiteLLMJudge``)."""
    seen = judge
    for _ in range(8):
        own = vars(seen) if hasattr(seen, "__dict__") else {}
        if "temperature" in own and callable(getattr(seen, "for_vote", None)):
            return True
        seen = own.get("judge")
        if seen is None:
            return False
    return False


def _vote(raw: Verdict, passages: list[Passage], claim: str, name: str) -> Vote:
    accepted, reason = check_verdict(raw, passages, claim)
    return Vote(label=accepted.label, judge=name,
                judge_label=raw.label if reason else None, note=reason or None)


class _Forwarding:
    """Forwards unknown attributes (``fingerprint``, ``context_budget_chars``, counters...) to
    the wrapped ``judge``."""

    judge: Any
    accounts_usage = True  # the wrapped judge's calls are accounted by ``call_judge``

    def __getattr__(self, name: str) -> Any:
        if name == "judge" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.judge, name)

    def decompose(self, answer: str) -> Any:
        """The wrapped judge's decomposition (votes are for verdicts only)."""
        return _loop.run_sync(self.adecompose(answer))

    async def adecompose(self, answer: str) -> Any:
        """The wrapped judge's decomposition, on the judge loop."""
        return await call_judge(self.judge, "decompose", answer)

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """``averify``, blocking."""
        return _loop.run_sync(self.averify(claim, passages))

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:  # pragma: no cover
        raise NotImplementedError


class VotingJudge(_Forwarding):
    """A judge asked again when its first verdict is not ``supported`` (module docstring).

    Args:
        judge: any judge.
        votes: most verdicts per claim (``>= 1``; 1 asks once, as the judge alone).
        name: the judge's name in the votes (default ``judge_name(judge)``).

    Raises:
        ValueError: ``votes`` is not an integer of at least 1.
    """

    def __init__(self, judge: Any, votes: int, *, name: str | None = None) -> None:
        if isinstance(votes, bool) or not isinstance(votes, int) or votes < 1:
            raise ValueError(f"votes must be an integer >= 1, got {votes!r}")
        self.judge = judge
        self.votes = votes
        self.name = name or judge_name(judge)

    def describe(self) -> str:
        """The wrapped judge's description, with the votes."""
        if getattr(self.judge, "deterministic", False):
            return f"{judge_description(self.judge)}; deterministic: asked once per claim"
        sampled = f", sampled at temperature {VOTE_TEMPERATURE:g}" if _samples(self.judge) \
            else ""
        return (f"{judge_description(self.judge)}; up to {self.votes} votes per claim first "
                f"judged not supported (votes 2.. see the passages rotated{sampled})")

    def fingerprint(self) -> dict[str, Any]:
        """The wrapped judge's fingerprint with ``votes`` added (a run judged with votes is
        not judged by the same procedure as one without)."""
        inner = getattr(self.judge, "fingerprint", None)
        found = inner() if callable(inner) else None
        return {**(found if isinstance(found, dict) else {}), "votes": self.votes}

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """The majority verdict over up to ``votes`` verdicts (module docstring); the votes
        go to ``collect_votes``.

        Raises:
            Exception: whatever a vote's judge call raised (never swallowed).
        """
        ballots: list[tuple[Vote, Verdict]] = []
        limit = 1 if getattr(self.judge, "deterministic", False) else self.votes
        for k in range(1, limit + 1):
            given = rotated(passages, k)
            raw = as_verdict(await call_judge(vote_variant(self.judge, k), "verify", claim,
                                              given))
            ballots.append((_vote(raw, given, claim, self.name), raw))
            supported = sum(1 for v, _ in ballots if v.label == "supported")
            left = limit - k
            if supported == k == 1:
                break  # a first "supported" stands: only "not supported" is asked again
            if k >= 2 and (2 * supported > limit or 2 * (supported + left) <= limit):
                break  # the remaining votes cannot change the outcome
        _publish([v for v, _ in ballots])
        return _chosen(ballots)


def _chosen(ballots: list[tuple[Vote, Verdict]]) -> Verdict:
    """The judge's own verdict of the first vote with the majority label."""
    label = majority([v.label for v, _ in ballots])
    return next(raw for v, raw in ballots if v.label == label)


class PanelJudge(_Forwarding):
    """Several judges verify every claim; the majority over their verdicts stands (module
    docstring). Decompositions come from the first member.

    Args:
        members: the judges (at least two), e.g. ``VotingJudge`` s.
        names: their names in the votes (default ``judge_name`` of each).

    Raises:
        ValueError: fewer than two members, or as many names as members not given.
    """

    def __init__(self, members: Sequence[Any], names: Sequence[str] | None = None) -> None:
        members = list(members)
        if len(members) < 2:
            raise ValueError(f"a panel needs at least two judges, got {len(members)}")
        if names is not None and len(names) != len(members):
            raise ValueError(f"{len(names)} names for {len(members)} panel judges")
        self.members = members
        self.judge = members[0]
        self.names = list(names) if names is not None else [judge_name(m) for m in members]

    def describe(self) -> str:
        """Every member's description."""
        return "panel (majority, ties not supported) of: " + " | ".join(
            judge_description(m) for m in self.members)

    def fingerprint(self) -> dict[str, Any]:
        """The members' fingerprints (``None`` for a member without one)."""
        prints = []
        for m in self.members:
            fingerprint = getattr(m, "fingerprint", None)
            prints.append(fingerprint() if callable(fingerprint) else None)
        return {"kind": "panel", "members": prints}

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Every member's verdict (concurrently), the majority standing; every member's votes
        go to ``collect_votes``.

        Raises:
            Exception: whatever a member raised (the first, in member order).
        """
        async def ask(member: Any, name: str) -> tuple[Verdict, list[Vote]]:
            with collect_votes() as votes:
                raw = as_verdict(await call_judge(member, "verify", claim, passages))
            if not votes:  # a member that does not vote itself: its verdict is its vote
                votes.append(_vote(raw, list(passages), claim, name))
            return raw, votes

        answers = await asyncio.gather(*(ask(m, n) for m, n in zip(self.members, self.names)))
        ballots = []
        for raw, votes in answers:
            checked = _vote(raw, list(passages), claim, votes[-1].judge)
            ballots.append((checked, raw))
        _publish([v for _, votes in answers for v in votes])
        return _chosen(ballots)


def with_votes(judge: Any, votes: int = 1, panel: Sequence[Any] = ()) -> Any:
    """The judge as ``--faithfulness-votes`` and ``--faithfulness-panel`` ask: ``judge``
    itself for one vote and no panel; else each judge (``judge`` first, then ``panel``) in a
    ``VotingJudge`` when ``votes > 1``, and a ``PanelJudge`` over them when there is a
    panel."""
    members = [judge, *panel]
    if votes > 1:
        members = [VotingJudge(m, votes) for m in members]
    return PanelJudge(members) if len(members) > 1 else members[0]
