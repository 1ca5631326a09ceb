"""Settings of the web service: a mapping first, then ``GERBIL_QA_*`` environment variables.

One frozen value read once by :func:`service.web.create_app`; every module gets what it needs
from it. Environment variables win over the mapping so that a deployment can override what a
``Makefile`` or a test passes (Flask tutorial pattern: config from mapping, then environment).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from service.errors import BadRequest

ENV_PREFIX = "GERBIL_QA_"
DEFAULT_BASE = "http://localhost:8080/"


# A setting that is a secret (a token, a password) is marked so in its field's metadata: the
# settings' repr shows whether it is set, never its value. A serve that failed at start printed
# the settings with the operator's token into its log (explore52 F3).
SECRET: Mapping[str, Any] = {"secret": True}
# keys of ``extra`` (settings this version does not know) whose values are kept out of the repr
_SECRET_WORDS = ("token", "secret", "password", "passwd", "key", "credential")


@dataclass(frozen=True, slots=True, repr=False)
class WebConfig:
    """Everything the web layer can be told. Names map to ``GERBIL_QA_<NAME>`` in upper case."""

    store: Path | str | None = None  # a store directory or a remote store's URL; None: in memory
    base: str = DEFAULT_BASE  # every minted URI starts with it; must end with "/"
    host: str = "127.0.0.1"
    port: int = 8080
    threads: int = 8  # waitress worker threads
    # Connections (waitress; see serving.py and the reverse proxy in README): at most
    # connection_limit open at once, each closed after channel_timeout seconds without traffic.
    connection_limit: int = 1000
    channel_timeout: int = 30
    # SPARQL endpoint limits (DESIGN §4: a hard time limit and a result-size limit per query).
    sparql_workers: int = 2  # processes that run public queries and can be killed
    sparql_timeout: float = 10.0  # seconds before a query's process is killed
    sparql_max_bytes: int = 16 * 1024 * 1024  # serialised result size limit
    sparql_memory_mb: int = 1024  # resident-memory limit of each query process (0: none)
    sparql_queue_timeout: float = 10.0  # seconds a request waits for a free worker (else 503)
    # Fair service (query_pool.py): a query running past sparql_quick_seconds is "long" and needs
    # one of sparql_long_queries slots (default: workers - 1), so a worker stays for quick ones.
    sparql_long_queries: int = 0  # 0: sparql_workers - 1
    sparql_quick_seconds: float = 0.5
    # Queries past these are refused before any engine sees them (sparql_guard.py): 400.
    # (service.sparql.MAX_QUERY_BYTES: also the bound on a Text2SPARQL system's query)
    sparql_max_query_bytes: int = 64 * 1024
    sparql_max_depth: int = 64  # nesting of { }, ( ) and [ ]
    # Worker processes have no network (isolation.py); off only where no mechanism exists.
    sparql_network_isolation: bool = True
    sparql_cache_entries: int = 256  # results of public queries kept until the next write (0: off)
    runner_workers: int = 2  # experiments evaluated at the same time
    # questions (times systems) evaluated at once by the runs of this process (0: no bound): a
    # run past it waits until room frees (one alone is admitted whatever its size), since
    # memory grows with them (bench/memory.py: ~0.2 GB a thousand while recording)
    runner_question_budget: int = 25_000
    # seconds a run may spend asking web services (0: no bound): past it, what is left of the
    # system being asked ends as not asked, with the reason, and the worker goes to the next
    # run (two runs on slow services held both workers for hours, explore46 5)
    runner_ask_seconds: float = 3600.0
    # runs queued or running in this process past which a submission is a 503 (0: no bound):
    # anyone may submit, and each waiting run keeps its uploads on disk
    max_waiting_runs: int = 100
    # queue the runs a shutdown or crash interrupted again at start (serve --no-resume: don't)
    resume_runs: bool = True
    # grants owner rights on every experiment (operator)
    admin_token: str | None = field(default=None, metadata=SECRET)
    # /metrics answers a bearer of it (Prometheus); unset: off
    metrics_token: str | None = field(default=None, metadata=SECRET)
    access_log: bool = False  # one log line per request (access_log.py; tokens blanked)
    max_upload_bytes: int = 64 * 1024 * 1024
    # /health says unavailable while the disk of the store (or of its jobs folder) has less
    # free than this (0: not checked): writes fail on it, reads still work (explore52 F6)
    min_free_bytes: int = 64 * 1024 * 1024
    # Submissions whose uploads total at most this are parsed in the request (format errors are
    # a 400 with file:line:column); larger ones are parsed in the job.
    sync_parse_bytes: int = 2 * 1024 * 1024
    # Answers per question and per file, and questions per file, of an upload
    # (service/formats/base.py): a file past one is refused naming the file, the place and the
    # limit (400, or the job's error); recording costs memory per question.
    max_answers_per_question: int = 100_000
    max_answers_per_file: int = 2_000_000
    max_questions_per_file: int = 20_000
    page_cache_entries: int = 1024  # rendered public documents kept in memory (0: off)
    # datasets per page of the DCAT catalogue (``catalog?page=N``): a harvester reads it a page
    # at a time; a store with fewer datasets than this serves the whole catalogue on one page
    catalog_page_size: int = 1000
    demo: bool = False  # compute and publish the demo experiment at first start
    # Knowledge bases a submission may name: "name=spec[,spec…];name2=url" (RDF files or one
    # SPARQL endpoint URL each). The demo KB is always available as "demo".
    kbs: str = ""
    # Names of those KBs whose files anyone may download from a published run that used them
    # (comma-separated); the others' files are described (name, SHA-256, triples), never
    # served: an operator's KB may be licensed or internal (explore34 13). The demo KB and a
    # built-in dataset's KB are served as the datasets' files are.
    public_kbs: str = ""
    # Networks that submitted web-service URLs may reach although not public, comma-separated
    # (e.g. "127.0.0.1/32" in tests, a lab subnet); the systems area's safety policy.
    allow_networks: str = ""
    # mark the owner cookie Secure; None: when the base is https (users come over TLS)
    secure_cookies: bool | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        """The settings, a secret one as whether it is set (:data:`SECRET`), a store URL
        without its ``user:password@``, an unknown setting named like a secret blanked."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("secret") and value is not None:
                shown = "'<set, not shown>'"
            elif f.name == "store" and isinstance(value, str):
                shown = repr(_without_userinfo(value))
            elif f.name == "extra":
                shown = repr({k: _shown_extra(k, v) for k, v in value.items()})
            else:
                shown = repr(value)
            parts.append(f"{f.name}={shown}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def format_limits(self):  # -> service.formats.Limits (imported lazily)
        """The format readers' limits with this configuration's answer and question limits."""
        from service.formats import Limits

        return Limits(
            max_answers_per_question=self.max_answers_per_question,
            max_answers_per_file=self.max_answers_per_file,
            max_questions_per_file=self.max_questions_per_file,
        )

    @property
    def cookies_secure(self) -> bool:
        """Whether the owner cookie is ``Secure``: as set, else when the base is https."""
        if self.secure_cookies is None:
            return self.base.startswith("https://")
        return self.secure_cookies

    @property
    def sparql_url(self) -> str:
        return self.base + "sparql"

    def network_policy(self):  # -> service.systems.safety.NetworkPolicy (imported lazily)
        """The allow-list (``allow_networks``, else ``$GERBIL_QA_ALLOW_NETWORKS``; networks or
        ``network:port``), never the service's own listening address and port."""
        from dataclasses import replace

        from service.systems.safety import NetworkPolicy, own_addresses

        networks = [n.strip() for n in self.allow_networks.split(",") if n.strip()]
        policy = NetworkPolicy.allowing(*networks) if networks else NetworkPolicy.from_env()
        return replace(policy, deny=tuple((n, self.port) for n in own_addresses(self.host)))


def secret_settings() -> tuple[str, ...]:
    """The settings marked :data:`SECRET`."""
    return tuple(f.name for f in fields(WebConfig) if f.metadata.get("secret"))


def _without_userinfo(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    return parts._replace(netloc="<credentials>@" + parts.netloc.rsplit("@", 1)[1]).geturl()


def _shown_extra(key: object, value: object) -> object:
    secret = any(word in str(key).lower() for word in _SECRET_WORDS)
    return "<not shown>" if secret and value is not None else value


# Settings a number outside its range makes meaningless: the least and most each may be (a port
# of 99999 was announced and listened nowhere; 0 SPARQL workers ran one)
BOUNDS: dict[str, tuple[float, float]] = {
    "port": (1, 65535),
    "threads": (1, float("inf")),
    "connection_limit": (1, float("inf")),
    "channel_timeout": (1, float("inf")),
    "sparql_workers": (1, float("inf")),
    "sparql_long_queries": (0, float("inf")),  # 0: workers - 1
    "sparql_timeout": (0.001, float("inf")),
    "sparql_queue_timeout": (0.001, float("inf")),
    "sparql_max_bytes": (1, float("inf")),
    "sparql_memory_mb": (0, float("inf")),  # 0: none
    "sparql_max_query_bytes": (1, float("inf")),
    "sparql_max_depth": (1, float("inf")),
    "sparql_cache_entries": (0, float("inf")),  # 0: off
    "runner_workers": (1, float("inf")),
    "runner_question_budget": (0, float("inf")),  # 0: no bound
    "runner_ask_seconds": (0, float("inf")),  # 0: no bound
    "max_waiting_runs": (0, float("inf")),  # 0: no bound
    "max_upload_bytes": (1, float("inf")),
    "min_free_bytes": (0, float("inf")),  # 0: not checked
    "sync_parse_bytes": (0, float("inf")),
    "max_answers_per_question": (1, float("inf")),
    "max_answers_per_file": (1, float("inf")),
    "max_questions_per_file": (1, float("inf")),
    "page_cache_entries": (0, float("inf")),  # 0: off
    "catalog_page_size": (1, float("inf")),
}


def expected_number(least: float, most: float = float("inf"), *, whole: bool) -> str:
    """What a numeric setting takes, one wording a kind: ``a whole number ≥ 1``, ``a whole
    number from 1 to 65535``, ``a finite number ≥ 0.001``. ``GERBIL_QA_THREADS=1.5`` was
    "cannot read '1.5' as int" and ``0`` "expected a finite number ≥ 1" (explore51 F7)."""
    number = "a whole number" if whole else "a finite number"
    return (
        f"{number} from {least:g} to {most:g}" if most < float("inf") else f"{number} ≥ {least:g}"
    )


def _whole(name: str) -> bool:
    return any(f.name == name and f.type in (int, "int") for f in fields(WebConfig))


def check_bounds(values: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> None:
    """Refuse a setting outside its :data:`BOUNDS` (also those given on the command line), and
    one not finite (``inf``, ``1e400`` were taken as no bound; explore49 F10), named as it was
    set (``labels``: the environment variable; it was named by its field)."""
    for name, (least, most) in BOUNDS.items():
        value = values.get(name)
        if value is not None and (not least <= value <= most or not math.isfinite(value)):
            label = (labels or {}).get(name, name)
            within = expected_number(least, most, whole=_whole(name))
            raise BadRequest(f"setting {label}: expected {within}, got {value}")


YES = ("1", "true", "yes", "on")
NO = ("0", "false", "no", "off", "")


def _convert(label: str, raw: Any, kind: Any, name: str = "") -> Any:
    """``raw`` as the setting ``name`` (shown as ``label``) takes it; a value it cannot be is
    refused as one out of its bounds is, the value as given, unquoted."""
    text = str(raw)
    try:
        if kind in (int, "int"):
            return int(text)
        if kind in (float, "float"):
            return float(text)
        if kind in (bool, "bool", "bool | None"):
            if isinstance(raw, bool):
                return raw
            if text.strip().lower() in YES:
                return True
            if text.strip().lower() in NO:
                return False
            raise ValueError(text)
    except ValueError:
        if kind in (bool, "bool", "bool | None"):
            said = f"{'/'.join(YES)} or {'/'.join(NO[:-1])}"
        else:
            least, most = BOUNDS.get(name, (-float("inf"), float("inf")))
            whole = kind in (int, "int")
            said = (
                expected_number(least, most, whole=whole)
                if name in BOUNDS
                else ("a whole number" if whole else "a finite number")
            )
        raise BadRequest(f"setting {label}: expected {said}, got {_said_value(text)}") from None
    return raw


def _said_value(text: str) -> str:
    """A refused setting's value as given, unquoted; ``an empty value`` where there is none to
    show (``GERBIL_QA_THREADS=`` said "got " with nothing after; explore54 F10), and quoted
    where it is only spaces."""
    if not text:
        return "an empty value"
    return repr(text) if not text.strip() else text


TEXT_SETTINGS = (
    "base",
    "host",
    "admin_token",
    "metrics_token",
    "kbs",
    "public_kbs",
    "allow_networks",
)


def load_config(
    mapping: Mapping[str, Any] | None = None, *, environ: Mapping[str, str] | None = None
) -> WebConfig:
    """Build the settings from ``mapping`` (keys as field names), then the environment."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    known = {f.name: f for f in fields(WebConfig) if f.name != "extra"}
    for key, value in (mapping or {}).items():
        if key.lower() in known:
            values[key.lower()] = value
        else:
            extra[key] = value
    for name in known:
        env_value = env.get(ENV_PREFIX + name.upper())
        if env_value is not None:
            values[name] = env_value
    out: dict[str, Any] = {}
    labels = {n: f"{n} ({ENV_PREFIX}{n.upper()})" for n in known if ENV_PREFIX + n.upper() in env}
    for name, value in values.items():
        kind = known[name].type
        if value is None:
            out[name] = None
        elif name == "store":
            from service.graph.store import check_location  # a directory or a store's URL

            out[name] = check_location(value)
        elif name in TEXT_SETTINGS:
            out[name] = str(value)
        else:
            out[name] = _convert(labels.get(name, name), value, kind, name)
    check_bounds(out, labels)
    if out.get("allow_networks"):  # a typo refused here, not as a traceback of the first run
        from service.systems.safety import parse_allow

        try:
            parse_allow(out["allow_networks"].split(","))
        except ValueError as err:
            label = labels.get("allow_networks", "allow_networks")
            raise BadRequest(f"setting {label}: {err}") from None
    from service.graph.claims import lease_seconds

    lease_seconds(env)  # read by the runner's claims; a bad value refused at start
    base = out.get("base", DEFAULT_BASE)
    if not base.endswith("/"):
        out["base"] = base + "/"
    return WebConfig(**out, extra=extra)
