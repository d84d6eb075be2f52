"""Every text catalogue of the service passes every check of kernel.catalogue (imported from every module)."""

from __future__ import annotations

import importlib
import pkgutil

from kernel import catalogue

PACKAGES = ("app", "kernel", "fact", "person", "perception", "cognitive_core", "concern", "action", "channels")
SKIPPED = ("app.migrations",)  # alembic's env.py runs migrations when imported
# Some of the catalogues there are (more may come): a table that stops being one would escape the checks.
KNOWN = {
    "app.console",
    "app.console.problems",
    "app.console.vocabulary",
    "app.console.words",
    "cognitive_core.brief_texts",
    "cognitive_core.brief_texts.units",
    "cognitive_core.review_rules",
    "cognitive_core.signal_routes",
    "concern.buttons",
    "concern.digest",
    "concern.escalation_texts.outcomes",
    "concern.escalation_texts.refused",
    "concern.media",
    "concern.messages",
    "concern.press_texts",
    "concern.promises",
    "concern.reasons.action_types",
    "concern.reasons.held",
    "concern.reasons.not_done",
    "concern.reasons.results",
    "concern.reasons.states",
    "concern.reminders",
    "concern.replies",
    "concern.replies.ask_or_tell",
    "concern.replies.help",
    "concern.replies.not_understood",
    "concern.replies.usage",
}


def _import_every_module() -> list[str]:
    names = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}."):
            if not info.name.startswith(SKIPPED):
                importlib.import_module(info.name)
                names.append(info.name)
    return names


def test_every_registered_catalogue_passes_every_check():
    assert len(_import_every_module()) > 100
    assert KNOWN - {c.name for c in catalogue.registered()} == set()
    problems = catalogue.check()
    assert problems == [], "\n".join(str(p) for p in problems)
