"""What every settings class shares, the core's and each channel plugin's: the DEPUTY_ prefix and durations.

`app.settings.Settings` is the core settings with every installed plugin's `PluginSettings` mixed in, so a
platform's `DEPUTY_<NAME>_…` fields live in its own folder (`channels/<name>/settings.py`).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "DEPUTY_"
_DURATION = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(value: Any) -> timedelta:
    """Parse `90`, `90s`, `15m`, `4h`, `2d` or a timedelta into a timedelta."""
    if isinstance(value, timedelta):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value
    else:
        match = _DURATION.match(str(value))
        if not match:
            raise ValueError(f"invalid duration {value!r}: use seconds or <n>s|m|h|d")
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    try:
        return timedelta(seconds=seconds)
    except OverflowError as exc:  # beyond timedelta's range: a bad value, not a crash
        raise ValueError(f"invalid duration {value!r}: too large") from exc


Duration = Annotated[timedelta, BeforeValidator(parse_duration)]


def at_least_a_second(value: timedelta) -> timedelta:
    """`value`, or ValueError when it is not positive (a field validator)."""
    if value.total_seconds() <= 0:
        raise ValueError("must be at least 1s")
    return value


class PluginSettings(BaseSettings):
    """A plugin's own settings (`DEPUTY_<NAME>_…`), mixed into the service's Settings; usable alone too."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")
