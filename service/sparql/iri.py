"""Relative IRI resolution (RFC 3986 §5.2), for IRIs in a query with a BASE.

Written out rather than taken from ``urllib.parse.urljoin``, which keeps dot segments of some
references and does not follow §5.2 for every scheme (it only joins schemes it knows).
"""

from __future__ import annotations

import re

# RFC 3986 appendix B.
_PARTS = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$", re.S)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def is_absolute(iri: str) -> bool:
    return _SCHEME.match(iri) is not None


def resolve(base: str | None, reference: str) -> str:
    """``reference`` resolved against ``base`` (RFC 3986 §5.2.2); unchanged without a base."""
    if base is None or is_absolute(reference):
        return reference
    b = _PARTS.match(base)
    r = _PARTS.match(reference)
    if b is None or r is None:  # pragma: no cover - the pattern matches every string
        return reference
    b_scheme, b_auth, b_path, b_query, _ = b.groups()
    _, r_auth, r_path, r_query, r_frag = r.groups()
    if r_auth is not None:
        auth, path, query = r_auth, _remove_dot_segments(r_path), r_query
    elif r_path == "":
        auth, path = b_auth, b_path
        query = r_query if r_query is not None else b_query
    else:
        if r_path.startswith("/"):
            path = _remove_dot_segments(r_path)
        else:
            path = _remove_dot_segments(_merge(b_auth, b_path, r_path))
        auth, query = b_auth, r_query
    out = f"{b_scheme}:" if b_scheme is not None else ""
    if auth is not None:
        out += "//" + auth
    out += path
    if query is not None:
        out += "?" + query
    if r_frag is not None:
        out += "#" + r_frag
    return out


def _merge(base_authority: str | None, base_path: str, reference_path: str) -> str:
    # §5.2.3
    if base_authority is not None and base_path == "":
        return "/" + reference_path
    return base_path[: base_path.rfind("/") + 1] + reference_path


def _remove_dot_segments(path: str) -> str:
    # §5.2.4, written over segments rather than the RFC's string-buffer loop.
    if "." not in path:
        return path
    absolute = path.startswith("/")
    segments = path.split("/")
    if absolute:
        segments = segments[1:]
    out: list[str] = []
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if out:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    text = "/".join(out)
    return "/" + text if absolute else text
