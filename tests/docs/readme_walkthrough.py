"""Runs the README's "Try it" as a reader would: the service started with the README's settings, then every
`$ ` command of its `console` blocks in one shell, each command's output set beside what the README shows.

The one normaliser (what may differ between two honest runs, and nothing else):
- record ids `fact_…`, `act_…`, `dec_…`, `con_…` (`con_20261201_003`) become `<id>`;
- ISO 8601 instants (`2026-12-01T21:30:05+08:00`) become `<instant>`, dates (`12-01`) `<mm-dd>`, clock times
  (`21:30`) `<hh:mm>`;
- how long something took in words (`用时 不到1分钟`, `已 2分钟`) becomes `用时 <duration>` / `已 <duration>`;
- the port: the README's `localhost:8000` is run on a free port and shown back as 8000.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
_RULES = [
    (re.compile(r"\b(?:fact|act|dec|con)_\d{8}_\d{3,}\b"), "<id>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?"), "<instant>"),
    (re.compile(r"(用时|已) [^）)，,]+"), r"\1 <duration>"),
    (re.compile(r"(?<![\d-])\d{2}-\d{2}(?![\d-])"), "<mm-dd>"),
    (re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)"), "<hh:mm>"),
]


def normalise(text: str) -> str:
    """`text` with the parts that differ between runs replaced (the list in this module's docstring)."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


@dataclass
class Step:
    """One `$ ` command of the README and the lines it shows under it."""

    command: str
    shown: list[str] = field(default_factory=list)


def section(text: str, title: str = "Try it") -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def start_command(part: str) -> tuple[dict[str, str], str]:
    """The settings of the ```sh block that runs `make run`, and where its stderr goes."""
    block = next(b for b in re.findall(r"```sh\n(.*?)```", part, flags=re.S) if "make run" in b)
    words = shlex.split(block.replace("\\\n", " "))
    env = dict(w.split("=", 1) for w in words[: words.index("make")])
    log = words[words.index("2>") + 1] if "2>" in words else "deputy.log"
    return env, log


def steps(part: str) -> list[Step]:
    """Every `$ ` command of the ```console blocks, its continuation lines joined (a trailing backslash, or a quote
    still open, as the shell reads them)."""
    found: list[Step] = []
    for block in re.findall(r"```console\n(.*?)```", part, flags=re.S):
        lines = block.rstrip("\n").split("\n")
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ "):
                command = lines[i][2:]
                while (command.endswith("\\") or not _complete(command)) and i + 1 < len(lines):
                    i += 1
                    command = command + "\n" + lines[i]
                found.append(Step(command))
            elif found:
                found[-1].shown.append(lines[i])
            i += 1
    return found


def _complete(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:  # "No closing quotation": the shell reads on
        return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(workdir: Path, *, timeout: float = 600) -> list[tuple[Step, str]]:
    """Start the service as the README does (in `workdir`), run every step, stop it; (step, printed) pairs."""
    part = section(README.read_text(encoding="utf-8"))
    settings, log = start_command(part)
    port = free_port()
    (workdir / ".venv").symlink_to(ROOT / ".venv")
    (workdir / "scripts").symlink_to(ROOT / "scripts")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    env.update(settings, DEPUTY_PORT=str(port), COLUMNS="200")
    with open(workdir / log, "w") as stderr:
        server = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "deputy"), "serve"], cwd=workdir, env=env, stdout=subprocess.DEVNULL,
            stderr=stderr,
        )  # fmt: skip
    try:
        _wait_ready(port, server)
        found = steps(part)
        script = "\n".join(f"printf '\\n@@step {n}\\n'\n{s.command.replace('localhost:8000', f'localhost:{port}')}"
                           for n, s in enumerate(found))  # fmt: skip
        done = subprocess.run(["bash", "-c", script], cwd=workdir, env=env, capture_output=True, text=True,
                              timeout=timeout)  # fmt: skip
        printed = re.split(r"^@@step \d+\n", done.stdout, flags=re.M)[1:]
        if len(printed) != len(found):
            raise RuntimeError(f"the walkthrough stopped after step {len(printed)}: {done.stderr[-2000:]}")
        return [(s, p.replace(f"localhost:{port}", "localhost:8000")) for s, p in zip(found, printed, strict=True)]
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait_ready(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"deputy serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError("deputy serve did not become ready in 120 s")


if __name__ == "__main__":  # `--fill`: write each OUTPUT placeholder of the README from a real run
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        results = run(Path(tmp))
    text = README.read_text(encoding="utf-8")
    for step, printed in results:
        print("$ " + step.command + "\n" + printed.strip("\n"))
        if "--fill" in sys.argv and step.shown == ["OUTPUT"]:
            at = text.index(step.command) + len(step.command)
            text = text[:at] + text[at:].replace("\nOUTPUT", "\n" + printed.strip("\n"), 1)
    if "--fill" in sys.argv:
        README.write_text(text, encoding="utf-8")
