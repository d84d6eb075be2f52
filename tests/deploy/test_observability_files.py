"""The alerting rules and the Grafana dashboard name only metrics and labels that `/metrics` really exposes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from channels.errors import Unreachable
from tests.integration.story_helpers import say

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "deputy.json"
PROMETHEUS_BUILTINS = {"up"}  # written by Prometheus itself for every scrape target
_SELECTOR = re.compile(r'\b([a-z_:][a-z0-9_:]*)\s*(\{(?:[^{}"]|"[^"]*")*\})?')  # braces may sit in quoted values
_MATCHER = re.compile(r"([a-z_][a-z0-9_]*)\s*(?:=~|!~|!=|=)\s*\"([^\"]*)\"")
_GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
_PROMQL_WORDS = {
    "sum", "max", "min", "avg", "count", "rate", "delta", "increase", "histogram_quantile", "by", "without",
    "and", "or", "unless", "on", "ignoring", "le", "bool", "offset", "abs", "clamp_min",
}  # fmt: skip


def rule_expressions() -> list[str]:
    groups = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))["groups"]
    return [rule["expr"] for group in groups for rule in group["rules"]]


def dashboard_expressions() -> list[str]:
    panels = json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]
    return [target["expr"] for panel in panels for target in panel["targets"]]


def selectors(expr: str) -> list[tuple[str, dict[str, str]]]:
    """(metric name, {label: matched value}) for every series selector in a PromQL expression."""
    without_strings_in_grouping = _GROUPING.sub(" ", expr)
    found = []
    for name, braces in _SELECTOR.findall(re.sub(r"\[[^\]]*\]", " ", without_strings_in_grouping)):
        if name in _PROMQL_WORDS or not (name.startswith("deputy_") or name in PROMETHEUS_BUILTINS):
            continue
        found.append((name, dict(_MATCHER.findall(braces or ""))))
    return found


@pytest.fixture
def exposed(ctx, client, team) -> dict[str, dict[str, set[str]]]:
    """{sample name: {label: values}} of /metrics after a loop was raised and answered, a send failed and a
    webhook ran."""
    _, telegram = team
    telegram.fail_with("tg_ls", Unreachable("chat not found"))
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi 周报写了吗？")
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    client.post("/webhooks/telegram", json={})  # whatever it answers, the request is counted by its route template
    names: dict[str, dict[str, set[str]]] = {}
    for family in text_string_to_metric_families(client.get("/metrics").text):
        for sample in family.samples:
            for label, value in sample.labels.items():
                names.setdefault(sample.name, {}).setdefault(label, set()).add(value)
            names.setdefault(sample.name, {})
    return names


SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the files, not the backend


@SQLITE_ONLY
@pytest.mark.parametrize("source", ["alerts", "dashboard"])
def test_every_metric_and_label_the_file_names_is_exposed(exposed, source):
    expressions = rule_expressions() if source == "alerts" else dashboard_expressions()
    assert expressions
    problems = []
    for expr in expressions:
        used = selectors(expr)
        assert used, f"no metric found in {expr!r}"
        for name, matchers in used:
            if name in PROMETHEUS_BUILTINS:
                continue
            if name not in exposed:
                problems.append(f"{name} (in {expr!r}) is not in /metrics")
                continue
            problems += [f"{name} has no label {label!r}" for label in matchers if label not in exposed[name]]
        labels = {label for name, _ in used for label in exposed.get(name, {})} | {"le"}
        for grouping in _GROUPING.findall(expr):
            problems += [
                f"grouping by {label!r} in {expr!r}: no such label"
                for label in map(str.strip, grouping.split(","))
                if label and label not in labels
            ]
    assert problems == []


@SQLITE_ONLY
def test_the_webhook_alert_matches_the_route_label_of_a_real_webhook_request(exposed):
    routes_in_alerts = {
        value for expr in rule_expressions() for _, matchers in selectors(expr) for key, value in matchers.items()
        if key == "route"
    }  # fmt: skip
    assert routes_in_alerts and routes_in_alerts <= exposed["deputy_http_requests_total"]["route"]


def test_the_rules_file_is_valid_for_promtool():
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (apt-get install prometheus)")
    result = subprocess.run([promtool, "check", "rules", str(ALERTS)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
