"""`-v/--verbose` and the library's debug lines (issue 22.4): capture templates, call-cache keys,
limiter decisions; never a secret on a log line."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from trigger_fakes import ScriptedJudge

from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.backends.limiter import AdaptiveLimiter, Failure, RetryPolicy
from skillbench.cli import build_parser, main
from skillbench.cli import logs as cli_logs

ROOT = Path(__file__).resolve().parents[1]
SKILL = ROOT / "data" / "skills" / "csv-cleanup"
EVALS = ROOT / "data" / "evals" / "csv-cleanup.trigger.json"
PLAIN_KEY = "plainvalue-9f8e7d6c5b4a3921"  # no known key shape: redacted as an env secret
SHAPED_KEY = "sk-ant-api03-" + "Zq7" * 20 + "AA"


@pytest.fixture(autouse=True)
def _no_verbose_handler() -> Iterator[None]:
    """Each test starts and ends with the `skillbench` logger as the process had it."""
    logger = logging.getLogger(cli_logs.ROOT_LOGGER)
    level, handlers = logger.level, list(logger.handlers)
    yield
    for handler in logger.handlers:
        if handler not in handlers:
            logger.removeHandler(handler)
    logger.setLevel(level)


def test_verbose_is_repeatable_on_the_top_level_and_on_each_command() -> None:
    parser = build_parser()
    assert getattr(parser.parse_args(["trigger", "s", "--evals", "e"]), cli_logs.DEST, 0) == 0
    args = parser.parse_args(["-v", "trigger", "s", "--evals", "e"])
    assert getattr(args, cli_logs.DEST) == 1
    args = parser.parse_args(["trigger", "s", "--evals", "e", "-vv"])
    assert getattr(args, cli_logs.DEST) == 2
    args = parser.parse_args(["improve", "s", "--evals", "e", "--verbose"])
    assert getattr(args, cli_logs.DEST) == 1
    # validate keeps its own -v (every finding); the log is `skillbench -v validate`
    args = parser.parse_args(["validate", "x", "-v"])
    assert args.verbose is True and getattr(args, cli_logs.DEST, 0) == 0


def test_levels_without_v_nothing_v_info_vv_debug(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_logs.configure(0) is None
    logger = cli_logs.configure(1)
    assert logger is not None and logger.level == logging.INFO
    logging.getLogger("skillbench.some.module").debug("first debug line")
    logging.getLogger("skillbench.some.module").info("an info line")
    cli_logs.configure(2)  # the same handler, one level lower: no line twice
    logging.getLogger("skillbench.some.module").debug("now a debug line")
    err = capsys.readouterr().err
    assert "an info line" in err and "first debug line" not in err
    assert err.count("now a debug line") == 1
    assert "DEBUG skillbench.some.module: now a debug line" in err


def test_a_debug_run_with_a_key_in_the_environment_never_logs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole `-vv` trigger eval with keys in the environment, one of them passed to a log
    line as an argument, one in the message itself and one in a logged traceback: the
    terminal shows the debug lines, never a key."""
    from skillbench.trigger import run as run_module

    monkeypatch.setenv("ANTHROPIC_API_KEY", PLAIN_KEY)
    monkeypatch.setenv("SKILLBENCH_TEST_TOKEN", SHAPED_KEY)
    original = run_module.backend_info

    def leaky(judge: object) -> object:
        log = logging.getLogger("skillbench.trigger.run")
        log.debug("the key is %s", os.environ["ANTHROPIC_API_KEY"])
        log.debug("a message holding " + os.environ["SKILLBENCH_TEST_TOKEN"])
        try:
            raise RuntimeError(f"refused for {os.environ['ANTHROPIC_API_KEY']}")
        except RuntimeError:
            log.debug("a failure", exc_info=True)
        return original(judge)  # type: ignore[arg-type]

    monkeypatch.setattr(run_module, "backend_info", leaky)
    argv = ["trigger", str(SKILL), "--evals", str(EVALS), "--backend", "lexical", "--runs", "1"]
    argv += ["--cache", str(tmp_path / "cache.sqlite"), "-vv"]
    assert main(argv) in (0, 1)
    err = capsys.readouterr().err
    assert "DEBUG skillbench.cache: call cache miss: trigger key" in err
    assert "[REDACTED]" in err and "RuntimeError" in err
    assert PLAIN_KEY not in err and SHAPED_KEY not in err
    assert main(argv) in (0, 1)  # the re-run: every key a hit
    err = capsys.readouterr().err
    assert "call cache hit: trigger key" in err and "call cache miss" not in err
    assert PLAIN_KEY not in err and SHAPED_KEY not in err


def test_call_cache_hits_and_misses_are_debug_lines_with_their_key(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = CallCache(tmp_path / "cache.sqlite")
    judge = CachingJudge(ScriptedJudge({"q": "T"}), cache)
    request = TriggerRequest(SkillEntry("s", "d"), (), "q", 0, 0)
    key = judge.key(request)
    with caplog.at_level(logging.DEBUG, logger="skillbench.cache"):
        asyncio.run(judge.judge(request))
        asyncio.run(judge.judge(request))
    cache.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "skillbench.cache"]
    assert lines == [
        f"call cache miss: trigger key {key} (scripted)",
        f"call cache hit: trigger key {key} (scripted)",
    ]


def test_limiter_decisions_are_debug_lines(caplog: pytest.LogCaptureFixture) -> None:
    """A retry-after honoured, a backoff, the concurrency halved, a budget pause, a give-up."""
    limiter = AdaptiveLimiter(4, cooldown=0.0, policy=RetryPolicy())
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    limiter.sleep = sleep
    answers = iter(
        [
            Failure(retryable=True, rate_limited=True, retry_after=0.5),
            Failure(retryable=True),
        ]
    )

    class Refused(Exception):
        pass

    async def call() -> str:
        failure = next(answers, None)
        if failure is not None:
            raise Refused(failure)
        return "ok"

    def classify(exc: BaseException) -> Failure | None:
        return exc.args[0] if isinstance(exc, Refused) else None

    logger = "skillbench.backends.limiter"
    with caplog.at_level(logging.DEBUG, logger=logger):
        assert asyncio.run(limiter.run(call, classify)) == "ok"
        for _ in range(8):  # a whole window of 429s: congestion
            limiter.throttled()
        limiter.observe_headers({"retry-after": "3"})
        answers = iter([Failure(retryable=False)])
        with pytest.raises(Refused):
            asyncio.run(limiter.run(call, classify))
    lines = [r.getMessage() for r in caplog.records if r.name == logger]
    assert lines[0] == "limiter: rate limited: retry 1 in 0.50 s (retry-after)"
    assert (
        lines[1].startswith("limiter: transient failure: retry 2 in ") and "(backoff)" in lines[1]
    )
    assert "limiter: rate limits persist: concurrency 4.0 -> 2.0 (of 4)" in lines
    assert any(line.startswith("limiter: transient failure: no retry left") for line in lines)
    assert waits[0] == 0.5
