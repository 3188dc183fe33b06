"""One request and token rate for a whole run (``--faithfulness-max-rpm`` / ``-max-tpm``),
measured on the arrival times the loopback server records (never on wall-time targets)."""

from __future__ import annotations

import json
import threading

import pytest
from chat_server import count_prompt_tokens
from scripted_model import AUDIT_ANSWER, AUDIT_PASSAGES, audit_handler, make_judge

from pytest_faithfulness import evaluate
from pytest_faithfulness.ratelimit import LEDGER_DIR, RateLimiter


def _arrivals(server) -> list[float]:
    return sorted(r.received_at for r in server.records)


def _observed_rpm(times: list[float]) -> float:
    """Requests per minute between the first and the last arrival."""
    return (len(times) - 1) / (times[-1] - times[0]) * 60


@pytest.mark.parametrize("limit", [None, 120.0])
def test_xdist_workers_share_one_request_rate(pytester, chat_server, limit):
    """Two workers with 8 verify calls in flight each: without a limit the requests come in
    a burst; with 120 rpm every two arrivals are at least 0.5 s apart (less the jitter of
    the loopback), whichever worker sent them."""
    chat_server.handler = audit_handler()
    pytester.makepyfile(test_rate=f'''
        import pytest
        @pytest.mark.parametrize("n", range(4))
        def test_answer(assert_faithful, n):
            assert_faithful({AUDIT_ANSWER!r} + " " * n, {AUDIT_PASSAGES!r}, record_only=True)
    ''')
    flags = ["--faithfulness-max-rpm", str(limit)] if limit else []
    result = pytester.runpytest("-n", "2", "--faithfulness-judge", "openai/scripted",
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-no-cache", *flags)
    result.assert_outcomes(passed=4)
    times = _arrivals(chat_server)
    assert len(times) == 4 * 6  # 1 decompose + 5 verify per answer
    shortest = min(b - a for a, b in zip(times, times[8:]))  # 9 requests in a row
    if limit is None:
        assert shortest < 1.0  # the control: unthrottled, the verify calls come in a burst
        return
    # 8 intervals are reserved at least 8 * 0.5 s apart; a request reaches the server up to
    # a second after its reserved time on a busy machine (a worker's first connection), so
    # arrival times at the server carry the client's scheduling jitter (a loaded CI machine
    # delays a sent request by up to a second or two): spans are measured with 2 s of slack;
    # over the whole run the rate is the limit
    assert shortest >= 8 * 60 / limit - 2.0
    assert times[-1] - times[0] >= (len(times) - 1) * 60 / limit - 2.0
    assert _observed_rpm(times[1:]) <= limit * 1.10  # after the first (cold) request
    # the ledger is the run's own (found by a new user: kept in the cache folder, a later run
    # with a higher limit waited out this run's spacing, and CI caches carried it along)
    assert not (pytester.path / ".faithfulness_cache" / LEDGER_DIR).exists()
    assert not list(pytester.path.rglob("rate-ledger"))


def test_the_ini_key_sets_the_rate_and_a_bad_value_is_a_usage_error(pytester, chat_server):
    chat_server.handler = audit_handler()
    pytester.makepyfile(test_one=f'''
        def test_answer(assert_faithful):
            assert_faithful({AUDIT_ANSWER!r}, {AUDIT_PASSAGES!r}, record_only=True)
    ''')
    pytester.makeini("[pytest]\nfaithfulness_max_rpm = 300\n")
    result = pytester.runpytest("--faithfulness-judge", "openai/scripted",
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-no-cache")
    result.assert_outcomes(passed=1)
    times = _arrivals(chat_server)
    assert min(b - a for a, b in zip(times, times[5:])) >= 5 * 0.2 - 0.5
    for flag, value in (("--faithfulness-max-rpm", "0"), ("--faithfulness-max-tpm", "many")):
        bad = pytester.runpytest(flag, value)
        assert bad.ret == pytest.ExitCode.USAGE_ERROR
        bad.stderr.fnmatch_lines([f"*{flag} (ini faithfulness_{flag[15:].replace('-', '_')})*"])


def test_judges_on_one_ledger_keep_to_one_token_rate(tmp_path, chat_server):
    """Two judges (two workers) on one ledger, concurrently: the tokens of every request but
    the last, at the allowed rate, fit in the time between the first and last arrivals."""
    chat_server.handler = audit_handler()
    max_tpm = 60_000.0  # 1,000 tokens a second; an audit request is a few hundred
    usages = []

    def worker() -> None:
        rate = RateLimiter(max_tpm=max_tpm, ledger=tmp_path / LEDGER_DIR)
        judge = make_judge(chat_server, rate=rate)
        result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge, concurrency=1)
        usages.append(result.usage)
        rate.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times = _arrivals(chat_server)
    tokens = sum(u.input_tokens + u.output_tokens for u in usages)
    largest = max(count_prompt_tokens(r.json) for r in chat_server.records) \
        + sum(u.output_tokens for u in usages)
    # each reply pushes the next start by its tokens at the allowed rate; two replies may be
    # in flight at once (one per worker), so the last two requests' tokens may overshoot
    assert times[-1] - times[0] >= (tokens - 2 * largest) * 60 / max_tpm
    assert tokens > 3 * largest  # the bound says something


def test_the_limiter_spaces_reservations_and_charges_token_debt(tmp_path):
    first = RateLimiter(max_rpm=60, max_tpm=600, ledger=tmp_path / "ledger")
    second = RateLimiter(max_rpm=60, max_tpm=600, ledger=tmp_path / "ledger")
    starts = [first.reserve(now=100.0), second.reserve(now=100.0), first.reserve(now=100.5)]
    assert starts == [100.0, 101.0, 102.0]  # one a second, across both
    second.charge_tokens(50, now=103.0)  # 50 tokens at 10 a second: 5 s of debt
    assert first.reserve(now=103.0) == 108.0
    alone = RateLimiter(max_rpm=60)
    assert alone.reserve(now=100.0) == 100.0 and alone.reserve(now=100.0) == 101.0
    for bad in (0, -1.0):
        with pytest.raises(ValueError, match="max_rpm must be a number > 0"):
            RateLimiter(max_rpm=bad)
    for limiter in (first, second):
        limiter.close()


# issue 21 item 16: one wait budget for "limit reached" answers, for the whole run ------------

def test_the_run_wait_counts_side_by_side_waits_once_and_is_shared_on_a_ledger(tmp_path):
    from pytest_faithfulness.ratelimit import RateLimitWait

    first = RateLimitWait(10.0, ledger=tmp_path / "wait")
    other = RateLimitWait(10.0, ledger=tmp_path / "wait")  # another process of the run
    assert first.grant(4.0, now=100.0) == 4.0            # held 100-104
    assert other.grant(2.0, now=101.0) == 2.0            # within it: nothing more held
    assert first.waited_s == 4.0
    assert other.grant(4.0, now=103.0) == 4.0            # 104-107 more: 7 s held
    assert first.grant(8.0, now=110.0) == 3.0            # 3 s left, then nothing
    assert other.waited_s == 10.0 and other.spent
    assert first.grant(1.0, now=120.0) == 0.0 and other.grant(5.0, now=121.0) == 0.0
    never = RateLimitWait(0.0)
    assert never.grant(1.0) == 0.0
    with pytest.raises(ValueError, match="finite number of seconds >= 0"):
        RateLimitWait(-1.0)


ALWAYS_429 = '''
import pytest

@pytest.mark.parametrize("n", range(3))
def test_answer(assert_faithful, n):
    assert_faithful("The Orbit blender has a 1.5-litre jar." + " " * n,
                    ["The Orbit blender has a 1.5-litre jar."])
'''


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist"])
def test_a_provider_that_always_answers_429_holds_the_run_once(pytester, chat_server, workers):
    """Every request is answered 429 with "Retry-After: 1". Each call may wait 300 s on its
    own (the per-call default), but the run's wait budget (3 s here, 120 s by default) is
    one for every call and worker: the run holds for about 3 s in all, then every call
    answered 429 errors at once, and the gate names the spent budget."""
    import time

    from chat_server import Reply

    chat_server.handler = lambda request: Reply.error(429, headers={"Retry-After": "1"}, body={
        "error": {"message": "Rate limit reached for requests", "type": "requests",
                  "code": "rate_limit_exceeded"}})
    pytester.makepyfile(test_limited=ALWAYS_429)
    started = time.monotonic()
    result = pytester.runpytest(*workers, "--faithfulness-judge", "openai/scripted",
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-no-cache", "--faithfulness-max-rate-limit-wait",
                                "3", "--faithfulness-report", "r.json")
    elapsed = time.monotonic() - started
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*GATE FAILED: 3 answer(s) not judged: the judge's provider "
                                 "kept answering 'limit reached' (HTTP 429) and the run's wait "
                                 "budget for rate-limited judge calls is spent "
                                 "(--faithfulness-max-rate-limit-wait)*"])
    # the waits of the whole run: the 3 s budget (Retry-After: 1 between a call's requests:
    # about 4 requests), never 3 x 300 s; the 429s after it are answered by an error at once
    # (one request each); two workers may wait side by side within the same 3 s
    assert len(chat_server.records) <= (4 + 1 + 1) * (2 if workers else 1)
    assert elapsed < 120  # on a loaded machine; 3 answers x 300 s before the run's budget
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert all(a["status"] == "error" and "wait budget" in a["error"] for a in report["answers"])


def test_an_answered_call_starts_the_run_wait_over(tmp_path):
    """A limit below the run's demand lets calls through now and then: the run is being
    served, so its waits never add up to a failure (no false alarm on a throttled run)."""
    from pytest_faithfulness.ratelimit import RateLimitWait

    wait = RateLimitWait(10.0, ledger=tmp_path / "wait")
    for minute in range(5):  # 5 x 8 s of waiting, each followed by an answered call
        assert wait.grant(8.0, now=1000.0 + 60 * minute) == 8.0
        RateLimitWait(10.0, ledger=tmp_path / "wait").answered()  # in another worker
    assert not wait.spent and wait.waited_s == 0.0
    assert wait.grant(12.0, now=2000.0) == 10.0 and wait.spent
