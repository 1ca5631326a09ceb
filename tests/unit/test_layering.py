"""Which part of ``service`` may import which: the domain (model, formats, SPARQL parser,
evaluation) knows neither the store, nor systems, nor the application layer, nor the adapters;
the graph layer knows no application layer and no adapter; only the command line imports the
web layer. Every import counts, also one inside a function or under ``TYPE_CHECKING``: a lazy
import is still a dependency.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"

DOMAIN_MUST_NOT = {"graph", "web", "systems", "experiments", "cli"}
FORBIDDEN: dict[str, set[str]] = {
    "model": DOMAIN_MUST_NOT,
    "errors": DOMAIN_MUST_NOT | {"model", "evaluation", "formats", "sparql", "kb"},
    "formats": DOMAIN_MUST_NOT,
    "sparql": DOMAIN_MUST_NOT,
    "evaluation": DOMAIN_MUST_NOT,
    "kb": DOMAIN_MUST_NOT,
    "mediatypes": DOMAIN_MUST_NOT,
    "contracts": DOMAIN_MUST_NOT,  # generated from the registries alone
    "catalog": {"web", "systems", "experiments", "cli"},
    "graph": {"web", "experiments", "cli", "systems"},
    "systems": {"web", "experiments", "cli"},
    "experiments": {"web", "cli"},
    "web": {"cli"},
}
"""Area -> the areas it must not import. On top of it: no area but ``cli`` imports ``web``."""


def area_of(module: str) -> str | None:
    """``service.graph.store`` -> ``graph``; ``service`` itself -> None."""
    parts = module.split(".")
    return parts[1] if parts[0] == "service" and len(parts) > 1 else None


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, *, is_package: bool) -> set[str]:
    """Every ``service…`` module that ``source`` (the module ``module``) imports."""
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            if target == "service":  # from service import formats
                found.update(f"service.{alias.name}" for alias in node.names)
    return {name for name in found if name == "service" or name.startswith("service.")}


def edges() -> dict[str, dict[str, set[str]]]:
    """Importing area -> imported area -> the modules where it happens."""
    out: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(SERVICE.rglob("*.py")):
        module = module_name(path)
        source = path.read_text(encoding="utf-8")
        here = area_of(module)
        for target in imports_of(source, module, is_package=path.name == "__init__.py"):
            there = area_of(target)
            if here and there and here != there:
                out[here][there].add(module)
    return out


def violations(found: dict[str, dict[str, set[str]]]) -> list[str]:
    problems = []
    for here, targets in sorted(found.items()):
        for there, modules in sorted(targets.items()):
            banned = there in FORBIDDEN.get(here, set()) or (there == "web" and here != "cli")
            if banned:
                problems.append(f"{here} imports {there} in {', '.join(sorted(modules))}")
    return problems


def test_every_area_imports_only_what_it_may() -> None:
    found = edges()
    # the walk sees the imports that must be there (it is not passing by seeing nothing)
    assert "web" in found["cli"] and "graph" in found["experiments"]
    assert "evaluation" in found["experiments"] and "kb" in found["evaluation"]
    assert violations(found) == []


def test_the_checker_sees_lazy_relative_and_package_imports() -> None:
    source = (
        "from service import web\n"
        "def f():\n"
        "    from ..graph import store\n"
        "    import service.experiments.run\n"
    )
    seen = imports_of(source, "service.evaluation.runner", is_package=False)
    assert {"service.web", "service.graph", "service.experiments.run"} <= seen
    broken = {"evaluation": {area_of(m) or "" for m in seen} - {"", "evaluation"}}
    problems = violations(
        {k: {t: {"service.evaluation.runner"} for t in v} for k, v in broken.items()}
    )
    assert len(problems) == 3 and all(p.startswith("evaluation imports") for p in problems)
