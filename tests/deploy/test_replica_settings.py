"""What a multi-replica deployment needs, read from the shipped files: the image is built once and reused, every
replica reads the same database and Redis, and no replica needs a hand-set console secret (the session key is kept
in the shared database, app.console.store). There is no Docker daemon or cluster here: the files are parsed and
rendered by these tests (and by `docker compose config` / `kubectl kustomize` in test_deploy_files where installed)."""

from __future__ import annotations

import re

from app.settings import Settings
from tests.deploy.test_deploy_files import ROOT, compose, manifests

_VARIABLE = re.compile(r"\$\{([A-Z_]+)[^}]*\}")


def _env_example() -> dict[str, str]:
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    return dict(re.findall(r"^(DEPUTY_[A-Z0-9_]+)=(.*)$", text, flags=re.M))


def _rendered_environment(service: dict) -> dict[str, str]:
    """The service's DEPUTY_* environment as Compose would give it: .env first, `environment:` over it."""
    values = _env_example() if service.get("env_file") in (".env", [".env"]) else {}
    for name, value in (service.get("environment") or {}).items():
        values[name] = _VARIABLE.sub(lambda m: f"example-{m.group(1).lower()}", str(value))
    return {k: v for k, v in values.items() if k.startswith("DEPUTY_")}


def _settings(environment: dict[str, str]) -> Settings:
    return Settings(_env_file=None, **{k.removeprefix("DEPUTY_").lower(): v for k, v in environment.items()})


def _deputy_services() -> dict[str, dict]:
    return {name: s for name, s in compose()["services"].items() if s.get("image") == "deputy:local"}


def test_compose_builds_the_image_once_and_every_deputy_container_reuses_it():
    services = compose()["services"]
    assert [name for name, s in services.items() if "build" in s] == ["migrate"]
    deputy = _deputy_services()
    assert set(deputy) == {"migrate", "app1", "app2", "processor"}
    for name, service in deputy.items():
        if name != "migrate":
            assert service["pull_policy"] == "never", name  # the image migrate built, never one from a registry


def test_compose_replicas_share_one_database_and_redis_and_need_no_console_secret():
    replicas = [s for name, s in _deputy_services().items() if name != "migrate"]
    assert len(replicas) >= 2
    settings = [_settings(_rendered_environment(replica)) for replica in replicas]
    assert len({s.database_url for s in settings}) == 1 and settings[0].database_url.startswith("postgresql")
    assert len({s.redis_url for s in settings}) == 1 and settings[0].redis_url
    # Unset on every replica: each signs with the key in the one database they share, so sessions carry over.
    assert all(s.console_secret is None for s in settings)
    assert all(s.host == "0.0.0.0" for s in settings)


def test_kubernetes_replicas_share_one_database_and_redis_and_need_no_console_secret():
    deployments = {d["metadata"]["name"]: d for d in manifests() if d["kind"] == "Deployment"}
    assert set(deployments) == {"deputy", "deputy-processor"}  # the web replicas and the processors apart
    deployment = deployments["deputy"]
    assert deployment["spec"]["replicas"] >= 2
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    for name in ("DEPUTY_DATABASE_URL", "DEPUTY_REDIS_URL"):
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == "deputy-secrets", name  # one value for every pod
    config = next(d for d in manifests() if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "deputy-config")
    assert "DEPUTY_CONSOLE_SECRET" not in env and "DEPUTY_CONSOLE_SECRET" not in config["data"]
    assert _settings(config["data"]).console_secret is None


def test_a_pinned_console_secret_would_have_to_be_the_same_on_every_replica():
    """Should an operator set DEPUTY_CONSOLE_SECRET, it comes from the one .env every replica reads."""
    replicas = [s for name, s in _deputy_services().items() if name != "migrate"]
    assert {str(replica["env_file"]) for replica in replicas} == {".env"}
    assert all("DEPUTY_CONSOLE_SECRET" not in (replica.get("environment") or {}) for replica in replicas)
