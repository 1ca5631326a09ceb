"""The suite's rules, in one place (a pytest plugin that ``tests/conftest.py`` loads).

- A test *needs the shared folder* (``../shared``: the benchmark data and the W3C standards) when
  it asks for the ``data_dir`` or ``standards_dir`` fixture, itself or through another fixture
  (the web tests' ``server``), or when its module holds a path inside that folder. A test marked
  ``browser`` needs Debian chromium, chromium-driver and selenium; one marked ``proxy`` nginx.
- When something a selected test needs is missing, the run stops before any test runs, with one
  message naming what is missing and how to get it. Nothing is skipped quietly.
- ``GERBIL_QA_SKIP=shared,browser,proxy`` (any of the names) is the only way to skip those tests;
  the run's last lines say which layers ran and which were skipped.
- An *optional* layer (``virtuoso``: tests of another store, which the issue asks to run where
  it is installed) is not run where what it needs is missing, and the last lines say so.
- With ``CI=true`` a skipped test fails the run, unless ``CI_ALLOWED_SKIPS`` names it and why.
- The suite runs in two worker processes (pytest-xdist, ``-n 2`` in pyproject.toml; ``-n 0`` runs
  it in one). Each worker collects and applies these rules; the workers hand what they saw to the
  controller, which prints the last lines. Where a layer the run needs is missing, the run falls
  back to one process, so that it still stops with the one message before any test runs. The
  workers take whole modules (``--dist loadscope``: a module's fixtures are made once), the
  reliability layer's and the browser's first, so the two workers end together.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GERBIL_QA_SHARED") or ROOT.parent / "shared").resolve()
DATA = Path(os.environ.get("GERBIL_QA_DATA") or SHARED / "data").resolve()
STANDARDS = Path(os.environ.get("GERBIL_QA_STANDARDS") or SHARED / "standards").resolve()
QALD = DATA / "qald" / "ag-sc_QALD"

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

SKIP_VARIABLE = "GERBIL_QA_SKIP"
CI_ALLOWED_SKIPS: dict[str, str] = {}
"""Node ids (or their prefix) that may skip when ``CI=true``, each with the reason. Keep it empty:
a test that cannot run in CI is a test CI does not have."""

SHARED_FIXTURES = frozenset({"data_dir", "standards_dir"})
LAYER_DIRS = ("unit", "integration", "reference", "web", "reliability")


def ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


# ------------------------------------------------------------------ what a test needs


def _holds_shared_path(module: ModuleType) -> bool:
    roots = (SHARED, DATA, STANDARDS)
    return any(
        isinstance(value, Path) and any(value.is_relative_to(root) for root in roots)
        for value in vars(module).values()
    )


def needs_shared(item: pytest.Item) -> bool:
    if SHARED_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    module = getattr(item, "module", None)
    return module is not None and _holds_shared_path(module)


def needs_browser(item: pytest.Item) -> bool:
    return item.get_closest_marker("browser") is not None


def needs_proxy(item: pytest.Item) -> bool:
    return item.get_closest_marker("proxy") is not None


def missing_proxy() -> list[str]:
    return [] if nginx() else ["Debian nginx"]


def nginx() -> str | None:
    """The nginx binary (in /usr/sbin, often not on a user's PATH)."""
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")


def needs_virtuoso(item: pytest.Item) -> bool:
    return item.get_closest_marker("virtuoso") is not None


def missing_virtuoso() -> list[str]:
    return [] if shutil.which("virtuoso-t") and shutil.which("isql-vt") else ["virtuoso-t"]


def missing_shared() -> list[str]:
    wanted = (("the benchmark data", DATA), ("the standards", STANDARDS))
    return [f"{what} ({path})" for what, path in wanted if not path.is_dir()]


def missing_browser() -> list[str]:
    missing = [
        f"Debian {package} ({path})"
        for package, path in (("chromium", CHROMIUM), ("chromium-driver", CHROMEDRIVER))
        if not Path(path).exists()
    ]
    for module, package in (
        ("selenium", "selenium"),
        ("selenium_axe_python", "selenium-axe-python"),
    ):
        if importlib.util.find_spec(module) is None:
            missing.append(f"the {package} package")
    return missing


@dataclass(frozen=True)
class Layer:
    name: str  # as written in GERBIL_QA_SKIP
    needs: Callable[[pytest.Item], bool]
    missing: Callable[[], list[str]]
    how: str  # how to get what is missing
    optional: bool = False  # where it is missing, its tests are not run, and the run says so


LAYERS = (
    Layer(
        "shared",
        needs_shared,
        missing_shared,
        "put the project's shared folder at ../shared, or point GERBIL_QA_SHARED at it "
        "(GERBIL_QA_DATA and GERBIL_QA_STANDARDS override its two parts)",
    ),
    Layer(
        "browser",
        needs_browser,
        missing_browser,
        "install them with `sudo apt-get install chromium chromium-driver` (`make test` does "
        "this itself when it runs as root or with passwordless sudo) and selenium and "
        "selenium-axe-python with `make install`",
    ),
    Layer(
        "proxy",
        needs_proxy,
        missing_proxy,
        "install it with `sudo apt-get install nginx` (`make test` does this itself when "
        "it runs as root or with passwordless sudo)",
    ),
    Layer(
        "virtuoso",
        needs_virtuoso,
        missing_virtuoso,
        "install Debian's virtuoso-opensource (`sudo apt-get install virtuoso-opensource`)",
        optional=True,
    ),
)


def skipped_layers() -> frozenset[str]:
    names = {n.strip() for n in os.environ.get(SKIP_VARIABLE, "").split(",") if n.strip()}
    unknown = names - {layer.name for layer in LAYERS}
    if unknown:
        raise pytest.UsageError(
            f"{SKIP_VARIABLE}: unknown layer {', '.join(sorted(unknown))}; "
            f"the layers that can be skipped are {', '.join(layer.name for layer in LAYERS)}"
        )
    return frozenset(names)


# ------------------------------------------------------------------ the hooks


@dataclass
class _Run:
    skipped: dict[str, int] = field(default_factory=dict)  # layer -> tests skipped by request
    absent: dict[str, int] = field(default_factory=dict)  # optional layer -> tests not run
    browser: set[str] = field(default_factory=set)  # node ids of the browser tests
    ci_failed: list[str] = field(default_factory=list)  # skips that failed under CI=true


_RUN = pytest.StashKey[_Run]()


def _worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")  # set by pytest-xdist in its worker processes


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RUN] = _Run()
    if _worker(config) or getattr(config.option, "dist", "no") == "no":
        return
    skip = skipped_layers()
    if any(layer.missing() for layer in LAYERS if not layer.optional and layer.name not in skip):
        # one process, so that a selected test needing it stops the run with one message
        # (raised in a worker, the same stop is an internal error of each worker)
        config.option.dist, config.option.tx = "no", []


def _heavy_first(items: list[pytest.Item]) -> None:
    """Reorder whole modules, each staying in one piece: those with a reliability or a browser
    test first (the heaviest: a worker that takes one of them last ends minutes after the
    other), then the rest in collection order."""

    def heavy(item: pytest.Item) -> bool:
        return needs_browser(item) or _layer_of(item.nodeid, set()) == "reliability"

    heavy_modules = {item.nodeid.split("::", 1)[0] for item in items if heavy(item)}
    items.sort(key=lambda item: item.nodeid.split("::", 1)[0] not in heavy_modules)


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: only what will run counts
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run = config.stash[_RUN]
    skip = skipped_layers()
    run.browser = {item.nodeid for item in items if needs_browser(item)}
    problems = []
    for layer in LAYERS:
        chosen = [item for item in items if layer.needs(item)]
        if not chosen:
            continue
        if layer.name in skip:
            reason = f"{SKIP_VARIABLE}={layer.name}"
            for item in chosen:
                item.add_marker(pytest.mark.skip(reason=reason))
            run.skipped[layer.name] = len(chosen)
        elif (missing := layer.missing()) and layer.optional:
            config.hook.pytest_deselected(items=chosen)
            items[:] = [item for item in items if not layer.needs(item)]
            run.absent[layer.name] = len(chosen)
        elif missing:
            problems.append(
                f"missing {' and '.join(missing)}, which {len(chosen)} selected tests need "
                f"(the first: {chosen[0].nodeid}).\n"
                f"  To run them: {layer.how}.\n"
                f"  To run without them: {SKIP_VARIABLE}={layer.name}"
            )
    if problems:
        raise pytest.UsageError("\n".join(problems))
    if _worker(config):
        _heavy_first(items)


def _allowed_in_ci(nodeid: str) -> bool:
    return any(nodeid.startswith(prefix) for prefix in CI_ALLOWED_SKIPS)


def _fail_skip_in_ci(
    config: pytest.Config, report: pytest.TestReport | pytest.CollectReport
) -> None:
    if not (report.skipped and ci()) or hasattr(report, "wasxfail"):
        return
    if _allowed_in_ci(report.nodeid):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (
        f"skipped with CI=true ({reason}): in CI no test may skip. Fix the cause, or name the "
        "test and why in CI_ALLOWED_SKIPS (tests/layers.py)."
    )
    config.stash[_RUN].ci_failed.append(report.nodeid)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _fail_skip_in_ci(item.config, report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    _fail_skip_in_ci(collector.config, report)
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a worker: hand what this worker saw to the controller (pytest-xdist's channel)."""
    config = session.config
    if _worker(config):
        run = config.stash[_RUN]
        config.workeroutput["gerbil_qa_layers"] = {  # type: ignore[attr-defined]
            "skipped": run.skipped,
            "absent": run.absent,
            "browser": sorted(run.browser),
            "ci_failed": run.ci_failed,
        }


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook, in the controller
def pytest_testnodedown(node: Any, error: Any) -> None:
    seen = getattr(node, "workeroutput", {}).get("gerbil_qa_layers")
    if not seen:
        return
    run = node.config.stash[_RUN]
    # every worker collects every test: the counts are the same in each, not to be added
    run.skipped.update(seen["skipped"])
    run.absent.update(seen["absent"])
    run.browser.update(seen["browser"])
    run.ci_failed.extend(seen["ci_failed"])  # each worker's own tests


def _layer_of(nodeid: str, browser: set[str]) -> str:
    if nodeid in browser:
        return "browser"
    parts = nodeid.split("::", 1)[0].split("/")
    if len(parts) > 2 and parts[0] == "tests" and parts[1] in LAYER_DIRS:
        return parts[1]
    return "top-level"


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: our lines come after pytest's summary
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> Generator[None, None, None]:
    yield
    if exitstatus == pytest.ExitCode.USAGE_ERROR:  # stopped before any test: the error says why
        return None
    run = config.stash[_RUN]
    ran: Counter[str] = Counter()
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "when", None) == "call":
                ran[_layer_of(report.nodeid, run.browser)] += 1
    order = (*LAYER_DIRS, "browser", "top-level")
    counts = ", ".join(f"{name} {ran[name]}" for name in order if ran[name])
    skipped = len(terminalreporter.stats.get("skipped", []))
    write = terminalreporter.write_line
    write(f"gerbil-qa test layers run: {counts or 'none'}; {skipped} skipped")
    if run.skipped:
        named = ", ".join(f"{name} ({n} tests)" for name, n in run.skipped.items())
        write(f"gerbil-qa test layers skipped by {SKIP_VARIABLE}: {named}", yellow=True)
    for name, n in run.absent.items():
        layer = next(layer for layer in LAYERS if layer.name == name)
        write(f"gerbil-qa: {n} {name} tests not run here (not installed: {layer.how})", yellow=True)
    if run.ci_failed:
        write(f"CI=true: {len(run.ci_failed)} skipped tests failed the run", red=True)
    return None
