"""The shipped deployment files name their reverse proxy in DEPUTY_TRUSTED_PROXIES, and the docs say which values:
else every console login would count as the proxy's (one guesser would lock everyone out) or the header would be
believed from anyone (a guesser could send a new address with every try)."""

from __future__ import annotations

import re
from ipaddress import ip_address, ip_network
from pathlib import Path

import yaml

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def _configmap() -> dict:
    return yaml.safe_load((ROOT / "deploy" / "k8s" / "configmap.yaml").read_text(encoding="utf-8"))


def test_compose_trusts_exactly_the_caddy_address_it_pins_on_its_own_network():
    compose = _compose()
    trusted = Settings(_env_file=None, trusted_proxies=compose["x-deputy"]["environment"]["DEPUTY_TRUSTED_PROXIES"])
    proxy = compose["services"]["proxy"]
    pinned = ip_address(proxy["networks"]["default"]["ipv4_address"])
    assert trusted.trusted_networks() == (ip_network(pinned),)  # one address, not the whole network
    [subnet] = [ip_network(c["subnet"]) for c in compose["networks"]["default"]["ipam"]["config"]]
    assert pinned in subnet
    assert proxy["image"].startswith("caddy") and "./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    # Every replica that serves the console gets the setting (through the shared anchor).
    for name in ("app1", "app2"):
        assert compose["services"][name]["environment"]["DEPUTY_TRUSTED_PROXIES"] == str(pinned)


def test_caddy_forwards_to_the_replicas_without_rewriting_x_forwarded_for():
    caddyfile = (ROOT / "deploy" / "caddy" / "Caddyfile").read_text(encoding="utf-8")
    assert re.search(r"reverse_proxy app1:8000 app2:8000", caddyfile)
    # Caddy sets X-Forwarded-For to the peer it saw; a header_up that touched it would hand clients the choice.
    assert not re.search(r"header_up\s+\S*X-Forwarded-For", caddyfile, flags=re.I)
    assert "trusted_proxies" not in caddyfile  # so Caddy drops what clients claim instead of passing it on


def test_kubernetes_trusts_a_private_range_for_its_ingress_pods():
    value = _configmap()["data"]["DEPUTY_TRUSTED_PROXIES"]
    networks = Settings(_env_file=None, trusted_proxies=value).trusted_networks()
    assert networks and all(network.is_private for network in networks)


def test_the_configuration_docs_name_the_values_the_shipped_files_set():
    compose_value = _compose()["x-deputy"]["environment"]["DEPUTY_TRUSTED_PROXIES"]
    k8s_value = _configmap()["data"]["DEPUTY_TRUSTED_PROXIES"]
    [row] = [line for line in CONFIGURATION.splitlines() if line.startswith("| `DEPUTY_TRUSTED_PROXIES`")]
    assert f"`{compose_value}`" in row and "docker-compose.yml" in row
    assert f"`{k8s_value}`" in row and "deploy/k8s/configmap.yaml" in row
    assert "| empty |" in row and Settings.model_fields["trusted_proxies"].default == ""
