"""The size rule of the service packages: no module over 300 lines, no function over 60, no line over 120 characters.

Measured with `len()` and `ast`, not with ruff: E501 counts a Chinese character as two columns and skips a line
that is one long token or carries `# noqa` / `# fmt: skip`, so a line can pass ruff and still be over 120 here.
A function's length is `end_lineno - lineno + 1` (decorators not counted; the functions nested in it count in
it, and are measured on their own too); methods included, each named `path:qualified.name`.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "kernel", "fact", "person", "perception", "cognitive_core", "concern", "action", "channels")
EXCLUDED = ("app/migrations/",)
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60
MAX_LINE_CHARS = 120


@dataclass(frozen=True)
class Module:
    path: str  # relative to the repository, with "/"
    lines: list[str]
    tree: ast.Module


def _lines(text: str) -> list[str]:
    """The physical lines as the tokenizer sees them (read_text already folded \\r\\n and \\r into \\n)."""
    if not text:
        return []
    parts = text.split("\n")
    return parts[:-1] if text.endswith("\n") else parts


def _modules() -> list[Module]:
    found = []
    for package in PACKAGES:
        for file in sorted((ROOT / package).rglob("*.py")):
            path = file.relative_to(ROOT).as_posix()
            if path.startswith(EXCLUDED):
                continue
            text = file.read_text(encoding="utf-8")
            found.append(Module(path, _lines(text), ast.parse(text, filename=path)))
    assert found, f"no modules found under {ROOT}"
    return found


def _functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, length in lines) of every function, methods and nested functions included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}{node.name}"
            if not isinstance(node, ast.ClassDef):
                yield name, node.end_lineno - node.lineno + 1
            yield from _functions(node, f"{name}.")
        else:
            yield from _functions(node, prefix)


@functools.cache
def _measures() -> dict[str, tuple[int, int]]:
    """Every measured thing by its key (`path`, `path:function`, `path:line`): (size, limit)."""
    measured: dict[str, tuple[int, int]] = {}
    for module in _modules():
        measured[module.path] = (len(module.lines), MAX_MODULE_LINES)
        for name, length in _functions(module.tree):
            key = f"{module.path}:{name}"
            measured[key] = max(measured.get(key, (0, 0)), (length, MAX_FUNCTION_LINES))
        for number, line in enumerate(module.lines, start=1):
            measured[f"{module.path}:{number}"] = (len(line), MAX_LINE_CHARS)
    return measured


def _kind(key: str) -> str:
    if ":" not in key:
        return "module"
    return "line" if key.rpartition(":")[2].isdigit() else "function"


def _in_order(key: str) -> tuple[str, int, str]:
    path, _, rest = key.partition(":")
    return (path, int(rest), "") if rest.isdigit() else (path, 0, rest)


def _offenders(kind: str) -> list[str]:
    measured = _measures()
    over = [key for key, (size, limit) in measured.items() if size > limit and _kind(key) == kind]
    return [f"{key}: {measured[key][0]} > {measured[key][1]}" for key in sorted(over, key=_in_order)]


def test_no_module_is_over_300_lines():
    offenders = _offenders("module")
    assert not offenders, f"modules over {MAX_MODULE_LINES} lines (split them by meaning):\n" + "\n".join(offenders)


def test_no_function_is_over_60_lines():
    offenders = _offenders("function")
    assert not offenders, f"functions over {MAX_FUNCTION_LINES} lines (extract a helper):\n" + "\n".join(offenders)


def test_no_line_is_over_120_characters():
    offenders = _offenders("line")
    assert not offenders, f"lines over {MAX_LINE_CHARS} characters by len():\n" + "\n".join(offenders)
