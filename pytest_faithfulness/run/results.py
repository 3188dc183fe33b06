"""The result store: every answer and calibration outcome of one run, and the judges seen.

It knows nothing of pytest, so a script can record into it too. Under pytest-xdist each
worker's store is sent to the controller as a JSON payload (``to_payload`` /
``merge_payload``) so the gate sees every verdict. ``finish.finish_run`` reads it once every
answer is in.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ..judges.protocol import fingerprint_of, judge_description
from ..records import AnswerResult, SessionSummary
from .golden import GoldenTests


class ResultStore:
    """Every answer result and calibration outcome of one run, thread-safe.

    Attributes:
        results: the answers, in recording order (``sort_results`` puts them in test-id
            order).
        calibration: the ``calibration.Outcome`` of each labelled record judged.
        incomplete_reason: why the run did not see every answer, else ``None``.
        silent_misses / expected_misses: answers known in advance to have missed their own
            thresholds without failing their tests, or under xfail (a merge of saved runs
            sets them from its shards; a pytest run finds them at the end).
        test_exitstatus: pytest's own exit status, when known in advance (a merge of saved
            runs: the status one run of every shard would have had).
        golden: the run's golden tests and what became of them (``golden.GoldenTests``).
    """

    def __init__(self) -> None:
        self.results: list[AnswerResult] = []
        self.calibration: list[Any] = []
        self.incomplete_reason: str | None = None
        self.silent_misses: list[AnswerResult] = []
        self.expected_misses: list[AnswerResult] = []
        self.test_exitstatus: int | None = None
        self.golden = GoldenTests()
        self._judges: dict[int, Any] = {}
        self._merged_judges: list[str] = []
        self._merged_judge_info: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._summary_cache: tuple[tuple[int, int | None], SessionSummary] | None = None

    def record(self, result: AnswerResult, judge: Any = None) -> None:
        """Keep one answer result (and remember the judge for its counters)."""
        with self._lock:
            self.results.append(result)
            if judge is not None:
                self._judges[id(judge)] = judge

    def record_calibration(self, outcome: Any, judge: Any = None) -> None:
        """Keep one calibration outcome (``calibration.Outcome``)."""
        with self._lock:
            self.calibration.append(outcome)
            if judge is not None:
                self._judges[id(judge)] = judge

    def mark_incomplete(self, reason: str) -> None:
        """Record that the run did not judge every answer (reasons accumulate, ``; ``-joined)."""
        with self._lock:
            if not self.incomplete_reason:
                self.incomplete_reason = reason
            elif reason not in self.incomplete_reason:
                self.incomplete_reason = f"{self.incomplete_reason}; {reason}"

    def sort_results(self) -> None:
        """Put the answers in test-id order (digit runs compared as numbers, the answers of
        one test in the order it recorded them; answers without a test id last), so that
        every report lists them alike however the run was split (``-n 2`` records them in
        finishing order)."""
        from ..runs.merge import natural_key

        with self._lock:
            self.results.sort(key=lambda r: (r.test_id is None, natural_key(r.test_id)))

    def add_merged_judges(self, names: list[str], info: list[dict[str, Any]]) -> None:
        """Add judges known only by description and fingerprint (``JudgeInfo`` dicts): an
        xdist worker's, or a saved shard's (``runs.merge``)."""
        with self._lock:
            self._merged_judges.extend(names)
            self._merged_judge_info.extend(info)

    def judges(self) -> list[str]:
        """Descriptions of the judges that produced the results, without duplicates."""
        names = [judge_description(j) for j in self._judges.values()] + self._merged_judges
        return list(dict.fromkeys(names))

    def judge_info_dicts(self) -> list[dict[str, Any]]:
        """Each judge's ``{"description": str, "fingerprint": dict | None}`` (JSON-safe),
        workers' and shards' included. A fingerprint that raises is left out, never fatal."""
        out: list[dict[str, Any]] = []
        for judge in self._judges.values():
            try:
                fp = fingerprint_of(judge)
            except Exception:  # a judge's fingerprint is informative here, never fatal
                fp = None
            if isinstance(fp, dict):  # JSON-safe for the xdist payload and the saved run
                fp = json.loads(json.dumps(fp, default=str))
            out.append({"description": judge_description(judge),
                        "fingerprint": fp if isinstance(fp, dict) else None})
        return out + list(self._merged_judge_info)

    def judge_info(self) -> list[Any]:
        """The judges with their fingerprints (``runs.saved.JudgeInfo``), without
        duplicates."""
        from ..runs.saved import JudgeInfo

        seen: dict[str, Any] = {}
        for data in self.judge_info_dicts():
            info = JudgeInfo.model_validate(data)
            seen.setdefault(info.identity(), info)
        return list(seen.values())

    def summary(self) -> SessionSummary:
        """The session metrics over every result so far, with the figures' 95% bootstrap
        intervals and smallest detectable drops (``runs.statistics``; computed once per set
        of results; a copy is returned)."""
        from ..runs.statistics import with_statistics

        key = (len(self.results), id(self.results[-1]) if self.results else None)
        if self._summary_cache is None or self._summary_cache[0] != key:
            self._summary_cache = (key, with_statistics(SessionSummary.of(self.results),
                                                        self.results))
        return self._summary_cache[1].model_copy(deep=True)

    def calibration_report(self) -> Any:
        """The ``calibration.CalibrationReport`` of the recorded outcomes, or ``None``."""
        if not self.calibration:
            return None
        from ..calibration import report

        return report(sorted(self.calibration, key=lambda o: o.id))

    # xdist ------------------------------------------------------------------------------------
    def to_payload(self) -> str:
        """This worker's results, calibration outcomes, judges and completeness as JSON."""
        return json.dumps({
            "results": [r.model_dump(mode="json") for r in self.results],
            "calibration": [o.model_dump(mode="json") for o in self.calibration],
            "judges": self.judges(),
            "judge_info": self.judge_info_dicts(),
            "incomplete_reason": self.incomplete_reason,
            "golden": self.golden.to_dict(),
        })

    def merge_payload(self, payload: str) -> None:
        """Add a worker's payload (from ``to_payload``)."""
        data = json.loads(payload)
        with self._lock:
            self.results.extend(AnswerResult.model_validate(r) for r in data["results"])
            if data.get("calibration"):
                from ..calibration import Outcome

                self.calibration.extend(Outcome.model_validate(o) for o in data["calibration"])
            self._merged_judges.extend(data.get("judges", []))
            self._merged_judge_info.extend(data.get("judge_info", []))
            self.golden.merge(data.get("golden"))
        if data.get("incomplete_reason"):
            self.mark_incomplete(data["incomplete_reason"])
