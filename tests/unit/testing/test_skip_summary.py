"""`make test` ends by saying how many tests a missing service skipped and how to run them (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import services_skipped

ROOT = Path(__file__).resolve().parents[3]
# Tests of both databases and Redis: their PostgreSQL and Redis halves need the servers, the rest runs anywhere.
BOTH_DATABASES = "tests/api/test_health.py"


def test_skip_reasons_are_counted_per_missing_service_and_other_skips_are_left_out():
    reasons = [
        "PostgreSQL unavailable: DEPUTY_TEST_POSTGRES_URL is not set",
        "PostgreSQL unavailable: OperationalError: refused",
        "Redis unavailable: DEPUTY_TEST_REDIS_URL is not set",
        "Chromium unavailable: /usr/bin/chromium does not exist (apt-get install chromium)",
        "SQLite has one writer at a time by design",
    ]
    assert services_skipped(reasons) == {"PostgreSQL": 2, "Redis": 1, "the browser": 1}
    assert services_skipped(["kubectl is not installed"]) == {}


def _pytest(env: dict[str, str]) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", BOTH_DATABASES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    return run.stdout


def test_a_run_without_postgres_ends_with_the_count_and_the_command_that_runs_them():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    out = _pytest(env)
    lines = out.strip().splitlines()
    at = next(i for i, line in enumerate(lines) if "tests skipped for want of a service" in line)
    assert all("%]" not in line for line in lines[at:]), "the summary comes after every test has run"
    count = int(lines[at].strip("= ").split()[0])
    per_service = lines[at + 1]
    assert count > 0 and "for want of PostgreSQL" in per_service and "for want of Redis" in per_service
    assert per_service.count("for want of") == 2 and "To run them: make test-all" in per_service
    assert sum(int(part.split()[-1]) for part in per_service.split(" for want of ")[:-1]) == count


def test_a_run_with_every_service_prints_no_such_summary():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    if "DEPUTY_TEST_POSTGRES_URL" in os.environ:
        env["DEPUTY_TEST_POSTGRES_URL"] = os.environ["DEPUTY_TEST_POSTGRES_URL"]
        env["DEPUTY_TEST_REDIS_URL"] = os.environ.get("DEPUTY_TEST_REDIS_URL", "")
        out = _pytest(env)
        assert "for want of a service" not in out
    else:  # without PostgreSQL here the previous test covers the summary; the clean case needs the server
        from tests.conftest import _missing

        _missing("PostgreSQL", "DEPUTY_TEST_POSTGRES_URL is not set")


def test_make_test_all_runs_the_service_tests_instead_of_skipping_them():
    """scripts/test-all (make test-all) finds PostgreSQL and Redis itself: nothing is skipped for want of them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    run = subprocess.run(
        ["scripts/test-all", "-q", "-p", "no:cacheprovider", BOTH_DATABASES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert "for want of a service" not in run.stdout
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert " passed" in run.stdout.strip().splitlines()[-1] and "skipped" not in run.stdout.strip().splitlines()[-1]
