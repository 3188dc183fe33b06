"""Judge noise under control: several verdicts per claim, and panels of judges.

``VotingJudge(judge, votes=N)`` (``--faithfulness-votes N``) follows the judge protocol. Every
claim is judged up to ``N`` times, whatever its first verdict: a ``supported`` first verdict
is questioned as much as any other, so votes can move a claim either way (a single lucky
sample must not pass a claim, as a single unlucky one must not fail it).

``PanelJudge(members)`` (``--faithfulness-panel``) asks every member judge (each possibly a
``VotingJudge``) about every claim; the majority over the members' verdicts stands and each
member's verdicts are kept.

Rules (both):

* **Majority, ties fail closed.** ``supported`` stands only when more than half of the votes
  (of ``N``, or of the members) are checked ``supported`` votes; otherwise the claim is not
  supported. Two votes that split are not supported.
* **A checked contradiction is kept.** When the claim is not supported and any vote is a
  ``contradicted`` verdict whose evidence passed the check, the claim is ``contradicted``
  (that vote's verdict stands), else ``unsupported``. So a checked ``contradicted`` verdict is
  overturned only by a strict majority of checked ``supported`` votes, never by a tie or by
  ``unsupported`` votes.
* **Stop when decided.** A ``VotingJudge`` stops asking as soon as the remaining votes cannot
  change whether ``supported`` has a majority of ``N``: with ``N = 3``, two agreeing votes end
  it (two calls), a split takes the third; with ``N = 2`` a first ``supported`` needs the
  second to agree (a split is not supported), while a first vote that is not ``supported``
  decides alone (the second could only tie). The contradicted/unsupported label comes from
  the votes asked (a vote never asked cannot add a contradiction).
* **Every vote is checked.** Each verdict goes through ``trust.quote_check.check_verdict`` against
  the passages it was given before it counts: a ``supported`` or ``contradicted`` vote whose
  evidence does not check out counts as ``unsupported`` (fail closed). The verdict returned
  is the judge's own verdict of the first vote with the outcome's label, so the pipeline
  checks it again and keeps its note as for any verdict.
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
* **One set of rules, one vote.** A panel refuses (``ValueError``) two members that judge by
  the same rules: the same ``rules`` attribute (the built-in offline judges ``offline``,
  ``offline-heuristic`` and ``offline-nli`` all have ``rules = "offline"``: they share the
  rules of ``offline.heuristic``, so their verdicts are not independent), or else the same model
  or name (``judge_name``), or the very same judge object. Otherwise two members that agree
  by construction would outvote an independent one.

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

from ..records import Passage, Verdict, Vote
from ..trust.quote_check import check_verdict
from .protocol import (
    Judge,
    WrappingJudge,
    as_verdict,
    call_judge,
    declares,
    fingerprint_of,
    is_deterministic,
    judge_description,
)
from .protocol import vote_variant as vote_variant  # re-exported: its home before protocol

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


#: Version of the voting procedure, in ``VotingJudge.fingerprint`` (2: every claim gets its
#: votes and a checked contradiction is kept; 1, unversioned, asked again only after a first
#: verdict that was not supported).
VOTE_RULES = 2


def majority(labels: Sequence[str]) -> str:
    """The label that stands over ``labels``, the checked labels of the votes (see the module
    docstring): ``supported`` needs more than half of them; otherwise ``contradicted`` when
    any of them is ``contradicted`` (a contradiction whose evidence passed the check is kept),
    else ``unsupported``. Ties are not supported.

    Raises:
        ValueError: no labels.
    """
    if not labels:
        raise ValueError("no votes")
    if 2 * labels.count("supported") > len(labels):
        return "supported"
    return "contradicted" if "contradicted" in labels else "unsupported"


def decided(supported: int, asked: int, votes: int) -> bool:
    """Whether ``asked`` votes of ``votes``, ``supported`` of them checked ``supported``,
    already decide the majority: ``supported`` has more than half of ``votes`` whatever the
    rest say, or cannot reach it even if every remaining vote says ``supported``."""
    left = votes - asked
    return 2 * supported > votes or 2 * (supported + left) <= votes


def rotated(passages: Sequence[Passage], vote: int) -> list[Passage]:
    """The passages for vote ``vote`` (1-based): rotated left by ``vote - 1`` places."""
    passages = list(passages)
    if not passages:
        return passages
    shift = (vote - 1) % len(passages)
    return passages[shift:] + passages[:shift]


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


def rules_of(judge: Any) -> tuple[str, Any]:
    """What a judge's verdicts come from, looking through wrappers (``.judge``): ``("rules",
    r)`` for the first ``rules`` string found (the built-in offline judges: ``"offline"``),
    else ``("judge", m)`` for the first ``model`` or ``name`` string, else ``("object", id)``
    of the innermost judge. Two panel members with the same answer are one judge (module
    docstring)."""
    chain = []
    seen = judge
    for _ in range(8):
        chain.append(seen)
        seen = (vars(seen) if hasattr(seen, "__dict__") else {}).get("judge")
        if seen is None:
            break
    for attrs, kind in ((("rules",), "rules"), (("model", "name"), "judge")):
        for item in chain:
            own = vars(item) if hasattr(item, "__dict__") else {}
            for attr in attrs:
                value = own.get(attr, getattr(type(item), attr, None))
                if isinstance(value, str) and value:
                    return kind, value
    return "object", id(chain[-1])


def _samples(judge: Any) -> bool:
    """Whether a judge (through wrappers) samples its later votes at ``VOTE_TEMPERATURE``: a
    judge with a ``temperature`` and a ``for_vote`` (``LiteLLMJudge``)."""
    seen = judge
    for _ in range(8):
        own = vars(seen) if hasattr(seen, "__dict__") else {}
        if "temperature" in own and declares(seen, "for_vote"):
            return True
        seen = own.get("judge")
        if seen is None:
            return False
    return False


def _vote(raw: Verdict, passages: list[Passage], claim: str, name: str) -> Vote:
    accepted, reason = check_verdict(raw, passages, claim)
    return Vote(label=accepted.label, judge=name,
                judge_label=raw.label if reason else None, note=reason or None)


class VotingJudge(WrappingJudge):
    """A judge asked up to ``votes`` times about every claim (module docstring).

    Args:
        judge: any judge.
        votes: most verdicts per claim (``>= 1``; 1 asks once, as the judge alone).
        name: the judge's name in the votes (default ``judge_name(judge)``).

    Raises:
        ValueError: ``votes`` is not an integer of at least 1.
    """

    def __init__(self, judge: Judge, votes: int, *, name: str | None = None) -> None:
        if isinstance(votes, bool) or not isinstance(votes, int) or votes < 1:
            raise ValueError(f"votes must be an integer >= 1, got {votes!r}")
        self.judge = judge
        self.votes = votes
        self.name = name or judge_name(judge)

    def describe(self) -> str:
        """The wrapped judge's description, with the votes."""
        if is_deterministic(self.judge):
            return f"{judge_description(self.judge)}; deterministic: asked once per claim"
        sampled = f", sampled at temperature {VOTE_TEMPERATURE:g}" if _samples(self.judge) \
            else ""
        return (f"{judge_description(self.judge)}; up to {self.votes} votes per claim, "
                f"stopping once the majority is decided (votes 2.. see the passages "
                f"rotated{sampled})")

    def fingerprint(self) -> dict[str, Any]:
        """The wrapped judge's fingerprint with ``votes`` and ``vote_rules`` (``VOTE_RULES``)
        added (a run judged with votes, or by another voting procedure, is not judged by the
        same procedure as one without)."""
        found = fingerprint_of(self.judge)
        return {**(found if isinstance(found, dict) else {}), "votes": self.votes,
                "vote_rules": VOTE_RULES}

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """The majority verdict over up to ``votes`` verdicts (module docstring); the votes
        go to ``collect_votes``.

        Raises:
            Exception: whatever a vote's judge call raised (never swallowed).
        """
        ballots: list[tuple[Vote, Verdict]] = []
        limit = 1 if is_deterministic(self.judge) else self.votes
        for k in range(1, limit + 1):
            given = rotated(passages, k)
            raw = as_verdict(await call_judge(vote_variant(self.judge, k), "verify", claim,
                                              given))
            ballots.append((_vote(raw, given, claim, self.name), raw))
            if decided(sum(1 for v, _ in ballots if v.label == "supported"), k, limit):
                break  # the remaining votes cannot change the outcome
        _publish([v for v, _ in ballots])
        return _chosen(ballots)


def _chosen(ballots: list[tuple[Vote, Verdict]]) -> Verdict:
    """The judge's own verdict of the first vote whose checked label is the outcome's
    (``majority``)."""
    label = majority([v.label for v, _ in ballots])
    return next(raw for v, raw in ballots if v.label == label)


class PanelJudge(WrappingJudge):
    """Several judges verify every claim; the majority over their verdicts stands (module
    docstring). Decompositions come from the first member.

    Args:
        members: the judges (at least two), e.g. ``VotingJudge`` s.
        names: their names in the votes (default ``judge_name`` of each).

    Raises:
        ValueError: fewer than two members, as many names as members not given, or two
            members that judge by the same rules (``rules_of``: e.g. ``offline`` and
            ``offline-heuristic``, or one model twice): one set of rules, one vote.
    """

    def __init__(self, members: Sequence[Judge], names: Sequence[str] | None = None) -> None:
        members = list(members)
        if len(members) < 2:
            raise ValueError(f"a panel needs at least two judges, got {len(members)}")
        if names is not None and len(names) != len(members):
            raise ValueError(f"{len(names)} names for {len(members)} panel judges")
        self.members = members
        self.judge = members[0]
        self.names = list(names) if names is not None else [judge_name(m) for m in members]
        first: dict[tuple[str, Any], int] = {}
        for i, member in enumerate(members):
            key = rules_of(member)
            if key in first:
                j = first[key]
                same = f"the same rules ({key[1]!r})" if key[0] == "rules" else \
                    "the same judge" + (f" ({key[1]!r})" if key[0] == "judge" else "")
                raise ValueError(
                    f"panel judges {j + 1} ({self.names[j]}) and {i + 1} ({self.names[i]}) "
                    f"judge by {same}: their verdicts are not independent and would outvote "
                    "the others together (one set of rules, one vote); keep one of them")
            first[key] = i

    def describe(self) -> str:
        """Every member's description."""
        return "panel (majority, ties not supported) of: " + " | ".join(
            judge_description(m) for m in self.members)

    def fingerprint(self) -> dict[str, Any]:
        """The members' fingerprints (``None`` for a member without one)."""
        return {"kind": "panel", "members": [fingerprint_of(m) for m in self.members]}

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Every member's verdict (concurrently), the majority standing; every member's votes
        go to ``collect_votes``.

        Raises:
            Exception: whatever a member raised (the first, in member order).
        """
        async def ask(member: Judge, name: str) -> tuple[Verdict, list[Vote]]:
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


def with_votes(judge: Judge, votes: int = 1, panel: Sequence[Judge] = ()) -> Judge:
    """The judge as ``--faithfulness-votes`` and ``--faithfulness-panel`` ask: ``judge``
    itself for one vote and no panel; else each judge (``judge`` first, then ``panel``) in a
    ``VotingJudge`` when ``votes > 1``, and a ``PanelJudge`` over them when there is a
    panel."""
    members = [judge, *panel]
    if votes > 1:
        members = [VotingJudge(m, votes) for m in members]
    return PanelJudge(members) if len(members) > 1 else members[0]
