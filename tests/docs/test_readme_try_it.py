"""The README fits on a screen or two, stands alone, and its "Try it" prints exactly what it shows (after the one
documented normaliser of tests/docs/readme_walkthrough.py)."""

from __future__ import annotations

import re

import pytest

from tests.docs import readme_walkthrough as walk

ROOT = walk.ROOT
DOCS = ("behaviour.md", "configuration.md", "api.md", "operations.md", "ARCHITECTURE.md", "PERFORMANCE.md")


@pytest.mark.slow
def test_every_try_it_command_prints_what_the_readme_shows(tmp_path):
    results = walk.run(tmp_path)
    assert len(results) >= 15
    for step, printed in results:
        assert walk.normalise(printed) == walk.normalise("\n".join(step.shown)), step.command


def test_the_normaliser_hides_ids_instants_and_durations_and_nothing_else():
    one = "to 2001: 已发给张三（con_20261201_001） 自 12-01 21:30 起（已 不到1分钟） at 2026-12-01T21:30:05+08:00"
    two = "to 2001: 已发给张三（con_20261202_017） 自 12-02 09:05 起（已 2分钟） at 2026-12-02T09:05:00+08:00"
    assert walk.normalise(one) == walk.normalise(two)
    assert walk.normalise(one) != walk.normalise(one.replace("2001", "2002"))
    assert walk.normalise(one) != walk.normalise(one.replace("张三", "李四"))
    assert walk.normalise("success\nblocked L1:daily_cap") != walk.normalise("success\nblocked L4:cooldown")


def test_the_walkthrough_parser_joins_continued_commands_and_reads_the_start_settings():
    part = (
        "```sh\nA=1 B='x y' \\\nmake run 2> out.log\n```\n```console\n$ echo 'a\nb'\na\nb\n$ echo c \\\n  d\nc d\n```\n"
    )
    assert walk.start_command(part) == ({"A": "1", "B": "x y"}, "out.log")
    steps = walk.steps(part)
    assert [s.command for s in steps] == ["echo 'a\nb'", "echo c \\\n  d"]
    assert [s.shown for s in steps] == [["a", "b"], ["c d"]]


def test_the_readme_fits_on_a_screen_or_two_and_links_only_inside_the_repository():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for heading in ("## Two commands", "## Try it", "## Talking to the bot", "## Connecting Feishu and Telegram"):
        assert heading in text
    for name in DOCS:
        assert f"docs/{name}" in text and (ROOT / "docs" / name).is_file(), name
    for target in re.findall(r"\]\(([^)#]+)", text):
        assert target.startswith("http") or (ROOT / target).exists(), target


def test_no_document_points_outside_the_repository():
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for document in documents:
        assert "../shared" not in document.read_text(encoding="utf-8"), document.name
