"""The deployment files start what they claim: every probe path is served by the app, every DEPUTY_* name is a real
setting, the image does not run as root, compose has two replicas behind a proxy with the right health checks,
and .env.example lists every setting. Docker has no daemon here: the files are parsed (and `docker compose
config` runs where it is installed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
SETTINGS = {f"DEPUTY_{name.upper()}" for name in Settings.model_fields}
_URL_PATH = re.compile(r"http://127\.0\.0\.1:8000(/[A-Za-z0-9_/]*)")
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def manifests() -> list[dict]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    return docs


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def pod_specs() -> list[tuple[str, dict]]:
    return [(doc["metadata"]["name"], doc["spec"]["template"]["spec"]) for doc in manifests()
            if doc["kind"] in ("Deployment", "Job")]  # fmt: skip


def probe_paths() -> set[str]:
    """Every HTTP path the deployment files probe: Kubernetes probes, compose health checks, the proxy's."""
    paths = {
        probe["httpGet"]["path"]
        for _, spec in pod_specs()
        for container in spec["containers"]
        for kind in ("startupProbe", "livenessProbe", "readinessProbe")
        if (probe := container.get(kind))
    }
    for service in compose()["services"].values():
        paths |= set(_URL_PATH.findall(" ".join(service.get("healthcheck", {}).get("test", []))))
    paths |= set(re.findall(r"health_uri\s+(\S+)", (ROOT / "deploy" / "caddy" / "Caddyfile").read_text()))
    return paths


@SQLITE_ONLY
def test_every_probe_path_is_served_by_the_app(client):
    paths = probe_paths()
    assert {"/healthz", "/readyz"} <= paths
    missing = {path for path in paths if client.get(path, headers={"Authorization": ""}).status_code == 404}
    assert not missing, f"probed but not served: {sorted(missing)}"


@SQLITE_ONLY
def test_readiness_is_served(client):
    assert client.get("/readyz").status_code == 200


def test_kubernetes_probes_liveness_on_healthz_and_readiness_on_readyz():
    [(_, spec)] = [(name, spec) for name, spec in pod_specs() if name == "deputy"]
    [container] = spec["containers"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    [deployment] = [d for d in manifests() if d["kind"] == "Deployment" and d["metadata"]["name"] == "deputy"]
    assert deployment["spec"]["replicas"] == 2
    assert container["args"] == ["deputy", "serve", "--no-processor"]


def test_kubernetes_runs_the_processor_apart_without_http_and_with_the_same_settings():
    specs = dict(pod_specs())
    [web], [processor] = specs["deputy"]["containers"], specs["deputy-processor"]["containers"]
    assert processor["args"] == ["deputy", "process"]
    assert "ports" not in processor and "readinessProbe" not in processor
    assert processor["envFrom"] == web["envFrom"] and processor["env"] == web["env"]
    [deployment] = [d for d in manifests() if d["kind"] == "Deployment" and d["metadata"]["name"] == "deputy-processor"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert labels["app.kubernetes.io/component"] == "processor"  # not selected by the web Service
    [service] = [d for d in manifests() if d["kind"] == "Service"]
    assert service["spec"]["selector"].get("app.kubernetes.io/component") == "server"


def _env_names() -> set[str]:
    """Every environment variable name the deployment files give a Deputy container."""
    names: set[str] = set()
    for doc in manifests():
        if doc["kind"] in ("ConfigMap", "Secret"):
            names |= set(doc.get("data") or {}) | set(doc.get("stringData") or {})
    for _, spec in pod_specs():
        for container in spec["containers"]:
            names |= {env["name"] for env in container.get("env", [])}
            names |= {env["valueFrom"]["secretKeyRef"]["key"] for env in container.get("env", []) if "valueFrom" in env}
    for service in compose()["services"].values():
        names |= set(service.get("environment") or {})
    for example in (ROOT / ".env.example", ROOT / "db.env.example"):
        names |= set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", example.read_text(encoding="utf-8"), flags=re.M))
    return names


def test_every_deputy_variable_in_the_deployment_files_is_a_real_setting():
    deputy = {name for name in _env_names() if name.startswith("DEPUTY_")}
    assert deputy and deputy - SETTINGS == set()


def test_env_example_lists_every_setting_once():
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    listed = re.findall(r"^#?\s*(DEPUTY_[A-Z0-9_]+)=", text, flags=re.M)
    assert sorted(set(listed)) == sorted(SETTINGS), f"missing: {sorted(SETTINGS - set(listed))}"
    assert len(listed) == len(set(listed))
    values = dict(re.findall(r"^(DEPUTY_[A-Z0-9_]+)=(.*)$", text, flags=re.M))
    Settings(_env_file=None, **{name.removeprefix("DEPUTY_").lower(): value for name, value in values.items()})


def test_the_image_and_the_pods_never_run_as_root():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    final_stage = re.split(r"^FROM ", dockerfile, flags=re.M)[-1]
    users = re.findall(r"^USER\s+(\S+)", final_stage, flags=re.M)
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert re.search(r"^EXPOSE 8000$", dockerfile, flags=re.M)
    assert len(re.findall(r"^FROM ", dockerfile, flags=re.M)) == 2  # the build stage's tools stay behind
    for name, spec in pod_specs():
        pod = spec.get("securityContext", {})
        for container in spec["containers"]:
            context = {**pod, **container.get("securityContext", {})}
            assert context.get("runAsNonRoot") is True and context.get("runAsUser", 0) != 0, name
            assert context.get("allowPrivilegeEscalation") is False, name


def test_the_docker_context_leaves_out_secrets_and_the_local_environment():
    ignored = set((ROOT / ".dockerignore").read_text(encoding="utf-8").split())
    assert {".env", "db.env", ".venv", ".git", "var", "tests"} <= ignored


def test_compose_runs_two_replicas_behind_a_proxy_with_health_checks():
    services = compose()["services"]
    replicas = [s for s in services.values() if s.get("command") == ["deputy", "serve", "--no-processor"]]
    assert len(replicas) == 2
    for replica in replicas:
        assert replica["env_file"] == ".env" and replica["restart"] == "unless-stopped"
        assert "/readyz" in " ".join(replica["healthcheck"]["test"])
        assert replica["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["command"] == ["deputy", "migrate"]
    caddy = (ROOT / "deploy" / "caddy" / "Caddyfile").read_text(encoding="utf-8")
    upstreams = re.search(r"reverse_proxy\s+([^{]+)\{", caddy).group(1).split()
    assert sorted(upstreams) == sorted(f"{name}:8000" for name, s in services.items() if s in replicas)
    assert services["postgres"]["healthcheck"]["test"][1:4] == ["pg_isready", "-h", "127.0.0.1"]
    for name, service in services.items():
        assert service.get("restart") == ("no" if name == "migrate" else "unless-stopped"), name


def test_compose_runs_the_processor_apart_after_the_migration():
    services = compose()["services"]
    processors = [s for s in services.values() if s.get("command") == ["deputy", "process"]]
    assert len(processors) == 1
    [processor] = processors
    assert processor["image"] == "deputy:local" and processor["env_file"] == ".env"
    assert processor["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert processor["environment"]["DEPUTY_REDIS_URL"]  # the web replicas wake it over Redis
    assert "ports" not in processor


def test_only_postgres_and_migrate_read_the_owner_password():
    for name, service in compose()["services"].items():
        files = service.get("env_file", [])
        reads_db_env = "db.env" in ([files] if isinstance(files, str) else files)
        assert reads_db_env == (name in ("postgres", "migrate")), name


def test_docker_compose_config_accepts_the_file(tmp_path):
    command = _compose_command()
    if command is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    for name in ("docker-compose.yml", "Dockerfile", "deploy"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    shutil.copy(ROOT / "db.env.example", tmp_path / "db.env")
    result = subprocess.run([*command, "config"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    rendered = yaml.safe_load(result.stdout)["services"]
    assert "DB_OWNER_PASSWORD" not in rendered["app1"]["environment"]
    assert rendered["app1"]["environment"]["DEPUTY_DATABASE_URL"].startswith("postgresql+psycopg://deputy_app:")


def _compose_command() -> list[str] | None:
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


def test_kustomize_renders_every_manifest():
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    result = subprocess.run(["kubectl", "kustomize", str(K8S)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    kinds = sorted(d["kind"] for d in yaml.safe_load_all(result.stdout) if d)
    assert kinds == sorted(d["kind"] for d in manifests() if d["kind"] != "Kustomization")
