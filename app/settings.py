"""One Settings object for the whole service, read from DEPUTY_* variables or `.env`.

`Settings` is `CoreSettings` with each installed channel plugin's settings class mixed in
(`channels/<name>/settings.py`): a platform's `DEPUTY_<NAME>_…` fields come with its plugin.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import timedelta
from functools import cached_property
from ipaddress import IPv4Network, IPv6Network, ip_network
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BeforeValidator, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app import plugins  # installs the channel names settings validate against, and brings their settings
from channels.plugin import ChannelPlugin
from cognitive_core.signals.routes import SignalRoute
from cognitive_core.signals.routes import load as load_routes
from kernel.channel_names import ChannelName
from kernel.settings import ENV_PREFIX, Duration, at_least_a_second, parse_duration

__all__ = ["CoreSettings", "Duration", "Settings", "compose", "parse_duration"]


def _json_object(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _parse_tokens(value: Any) -> dict[str, SecretStr]:
    """`name:token,name:token` → {token: name}-like mapping kept as name → secret."""
    if isinstance(value, dict):
        return {k: v if isinstance(v, SecretStr) else SecretStr(str(v)) for k, v in value.items()}
    tokens: dict[str, SecretStr] = {}
    for item in str(value or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, token = item.partition(":")
        if not sep or not name.strip() or not token.strip():
            raise ValueError("tokens must look like name:token,name:token")
        tokens[name.strip()] = SecretStr(token.strip())
    return tokens


def _comma_list(value: Any) -> Any:
    return [x.strip() for x in value.split(",") if x.strip()] if isinstance(value, str) else value


Tokens = Annotated[dict[str, SecretStr], NoDecode, BeforeValidator(_parse_tokens)]
DurationTable = Annotated[dict[str, Duration], NoDecode, BeforeValidator(_json_object)]
Schedule = Annotated[dict[str, list[Duration]], NoDecode, BeforeValidator(_json_object)]

DEFAULT_SCHEDULE = {"P0": ["1h", "1h"], "P1": ["4h", "24h", "24h"], "P2": ["1d", "2d", "2d"], "P3": ["2d", "3d"]}
DEFAULT_COOLDOWNS = {"task_overdue": "4h", "daily_brief": "20h", "default": "1h"}


class CoreSettings(BaseSettings):
    """The service's own knobs; each channel plugin brings its platform's (`compose`). See docs/configuration.md."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_file=".env", extra="ignore")

    database_url: str = "sqlite:///./var/deputy.db"
    # The schema owner's URL for `deputy migrate` (unset: database_url); the service itself never uses it.
    migration_database_url: str | None = None
    # How long `deputy serve` / `deputy migrate` retry a database that does not answer yet, with backoff.
    database_startup_timeout: Duration = timedelta(seconds=60)
    redis_url: str | None = None
    # Every Redis call (connect or answer) waits at most this long and is never retried; after a few failures in
    # a row Redis is skipped for `redis_retry_after`, then tried again (the database stays the truth).
    redis_timeout_ms: int = Field(200, ge=1, le=5000)
    redis_retry_after: Duration = timedelta(seconds=30)
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    timezone: str = "Asia/Shanghai"
    # What a person reads when a text has no entry in their own language (kernel.catalogue's one fallback).
    default_locale: Literal["zh", "en"] = "zh"
    log_level: str = "INFO"

    admin_tokens: Tokens = Field(default_factory=dict)
    viewer_tokens: Tokens = Field(default_factory=dict)
    max_body_bytes: int = 1024 * 1024

    # Channels replaced by a logging stand-in (e.g. "feishu,telegram") to try Deputy without platform accounts.
    dry_run_channels: Annotated[list[ChannelName], NoDecode, BeforeValidator(_comma_list)] = Field(default_factory=list)

    follow_up_schedule: Schedule = Field(default_factory=lambda: _json_object(json.dumps(DEFAULT_SCHEDULE)))
    concern_contact_limit: int = Field(2, ge=1)
    concern_contact_window: Duration = timedelta(hours=24)
    # Follow-ups to one person falling due within this go out as one message (0: each on its own).
    bundle_window: Duration = timedelta(minutes=30)
    max_active_concerns: int = Field(30, ge=0)
    max_active_concerns_per_person: int = Field(5, ge=0)
    notification_cooldowns: DurationTable = Field(default_factory=lambda: dict(DEFAULT_COOLDOWNS))
    # External signal routes: inline JSON or `@path/to/routes.yaml` (docs/behaviour.md "External signal routes").
    signal_routes: Annotated[dict[str, SignalRoute], NoDecode, BeforeValidator(load_routes)] = Field(
        default_factory=dict
    )
    # Notification types held for a person's digest (with interaction_policy.digest), besides P2/P3 backflows.
    digest_types: Annotated[list[str], NoDecode, BeforeValidator(_comma_list)] = Field(default_factory=list)
    scheduler_interval: Duration = timedelta(seconds=10)
    # An escalated concern nobody answers expires this long after its last escalation step.
    concern_expire_after: Duration = timedelta(days=7)
    # An escalation nobody takes or answers is repeated once after this (unset: the priority's last follow-up
    # wait), then climbs to the next manager up, at most `escalation_max_levels` levels above the person asked.
    escalation_repeat_after: Duration | None = None
    escalation_max_levels: int = Field(2, ge=1, le=10)
    llm_base_url: str | None = None  # OpenAI-compatible API; off when unset
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout: Duration = timedelta(seconds=5)
    # Calls a day (in DEPUTY_TIMEZONE), counted in the database across replicas; then the rules' answer stands.
    llm_daily_budget: int = Field(500, ge=0)
    scheduler_enabled: bool = True  # the in-process timer loop; off for replicas that only serve HTTP
    # A pending action older than this cannot still be in flight (channel timeouts are far shorter).
    action_pending_timeout: Duration = timedelta(seconds=120)
    # How long /healthz and /readyz wait for the database to answer before reporting it unreachable.
    probe_timeout: Duration = timedelta(seconds=1)

    # The service's public address (https://deputy.example.com): a long brief links to its console.
    public_url: str | None = None

    # The admin console (/console): session cookies are signed with this, else with the key kept in the database.
    console_secret: SecretStr | None = None
    console_secure_cookies: bool = False  # mark the session cookie Secure (serve the console over HTTPS)
    console_session_ttl: Duration = timedelta(hours=12)
    # The login limit (app.console.limits): distinct wrong tokens per address, or per token holder for a browser
    # that logged in before (a device cookie, valid `console_device_ttl`), in the window before 429 ...
    console_login_attempts: int = Field(5, ge=1)
    console_login_window: Duration = timedelta(minutes=15)
    # ... and from every browser without a device cookie together: a guesser on many addresses still meets it.
    console_login_new_device_attempts: int = Field(50, ge=1)
    console_device_ttl: Duration = timedelta(days=30)
    # Reverse proxies whose X-Forwarded-For is believed (comma-separated addresses or CIDRs); empty: none, the
    # TCP peer is the client. Caddy in docker-compose.yml: its fixed address; Kubernetes: the ingress pods' CIDR.
    trusted_proxies: str = ""

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_networks(cls, value: str) -> str:
        for part in filter(None, (p.strip() for p in value.split(","))):
            try:
                ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"{part!r} is not an IP address or CIDR") from None
        return value

    def trusted_networks(self) -> tuple[IPv4Network | IPv6Network, ...]:
        """DEPUTY_TRUSTED_PROXIES as networks."""
        return tuple(ip_network(p.strip(), strict=False) for p in self.trusted_proxies.split(",") if p.strip())

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA timezone {value!r}") from exc
        return value

    @field_validator("follow_up_schedule")
    @classmethod
    def _schedule_per_priority(cls, value: dict[str, list[timedelta]]) -> dict[str, list[timedelta]]:
        for priority in ("P0", "P1", "P2", "P3"):
            if not value.get(priority):
                raise ValueError(f"follow_up_schedule needs a non-empty list for {priority}")
        return value

    @field_validator("redis_retry_after", "probe_timeout", "console_device_ttl")
    @classmethod
    def _positive(cls, value: timedelta) -> timedelta:
        return at_least_a_second(value)

    @field_validator("notification_cooldowns")
    @classmethod
    def _cooldown_default(cls, value: dict[str, timedelta]) -> dict[str, timedelta]:
        value.setdefault("default", timedelta(hours=1))
        return value

    @cached_property
    def tz(self) -> ZoneInfo:
        """The deployment timezone (id dates, default person timezone)."""
        return ZoneInfo(self.timezone)

    def token_roles(self) -> list[tuple[str, str, str]]:
        """(role, name, secret) for every configured token, admins first."""
        return [("admin", n, s.get_secret_value()) for n, s in self.admin_tokens.items()] + [
            ("viewer", n, s.get_secret_value()) for n, s in self.viewer_tokens.items()
        ]


def _mixins(installed: tuple[ChannelPlugin, ...]) -> tuple[type, ...]:
    """Each plugin's settings class; its fields are `<name>_…`, so no plugin shadows the core or another plugin."""
    for plugin in installed:
        foreign = [f for f in getattr(plugin.settings, "model_fields", {}) if not f.startswith(f"{plugin.name}_")]
        if foreign:
            raise TypeError(f"the {plugin.name} plugin's settings must be named {plugin.name}_…: {', '.join(foreign)}")
    return plugins.settings_classes(installed)


def compose(installed: Iterable[ChannelPlugin] | None = None) -> type[CoreSettings]:
    """CoreSettings with each plugin's settings mixed in (PLUGINS unless `installed`): `DEPUTY_<NAME>_…` fields."""
    namespace = {
        "__module__": __name__,
        "__qualname__": "Settings",
        "__doc__": "Every knob of the service, the core's and each channel plugin's; see docs/configuration.md.",
        # the core's config, not a mixin's: `.env` is read, whatever the plugins' own classes say
        "model_config": SettingsConfigDict(**CoreSettings.model_config),
    }
    mixins = _mixins(plugins.PLUGINS if installed is None else tuple(installed))
    return type("Settings", (CoreSettings, *mixins), namespace)


Settings = compose()
