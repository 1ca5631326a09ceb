"""What the host ran short of: a full disk, too many open files.

Both reach the code as an :class:`OSError` (Python's own with ``errno``; pyoxigraph's RocksDB
errors as an ``OSError`` whose text says it, "IO error: No space left on device: While appending
to file: …", without an ``errno``). Neither is a bug of the service nor damage to the store: a
full disk passes when someone frees space, a shortage of open files when the load drops. So
the web answers them with a status a client can act on (507, 503 with ``Retry-After``), a run
that hit one is left resumable, and ``/health`` says the store cannot write, where a generic
500 or a run ``running`` for good said nothing of the cause (explore52 F4, F5, F6, F10, F11).

:func:`writing` names what a write was for (``the job's answer log``) on the error that cut it
short, so what is said can name it; :class:`WriteFailures` remembers the last full-disk error
a process met, for ``/health``.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from service.errors import no_room

_NO_FILES_TEXT = ("Too many open files",)
_WRITING = "gerbil_qa_writing"  # the attributes :func:`writing` sets on the error
_WHERE = "gerbil_qa_where"


def _causes(err: BaseException) -> Iterator[BaseException]:
    """``err`` and what it was raised from or while handling (a few levels)."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def no_space(err: BaseException) -> bool:
    """Whether ``err`` (or its cause) is a full disk, a used-up quota or a file-size limit
    (:func:`service.errors.no_room`, which the command line says them with)."""
    return no_room(err)


def out_of_files(err: BaseException) -> bool:
    """Whether ``err`` (or its cause) is the open-files limit of the process (EMFILE) or of
    the system (ENFILE)."""
    for each in _causes(err):
        if isinstance(each, OSError) and (
            each.errno in (errno.EMFILE, errno.ENFILE)
            or any(text in str(each) for text in _NO_FILES_TEXT)
        ):
            return True
    return False


@contextmanager
def writing(what: str, *, where: str = "the store") -> Iterator[None]:
    """Name what the writes inside are for (``the job's answer log``) and where they go (``the
    store's jobs folder``) on an :class:`OSError` that leaves them, unless a narrower one named
    them already; the error is raised as it was."""
    try:
        yield
    except OSError as err:
        if getattr(err, _WRITING, None) is None:
            setattr(err, _WRITING, what)
            setattr(err, _WHERE, where)
        raise


def written(err: BaseException) -> tuple[str, str] | None:
    """What the write that failed with ``err`` was for and where it went, if :func:`writing`
    named them."""
    for each in _causes(err):
        what = getattr(each, _WRITING, None)
        if what is not None:
            return str(what), str(getattr(each, _WHERE, "the store"))
    return None


def cause(err: BaseException) -> str:
    """``err`` in words naming no file of the server: a full disk, too many open files, or
    the operating system's words for another error."""
    named = written(err)
    if no_space(err):
        said = f"no space is left on the disk that holds {named[1] if named else 'the store'}"
    elif out_of_files(err):
        said = "the server has too many files open"
    else:
        errors = [e for e in _causes(err) if isinstance(e, OSError)]
        first = errors[0] if errors else err
        said = getattr(first, "strerror", None) or type(first).__name__
    return f"{said} (writing {named[0]})" if named else said


class WriteFailures:
    """The last time this process could not write for want of disk space (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: float | None = None
        self.count = 0

    def note(self, err: BaseException) -> bool:
        """Remember ``err`` if it is a full disk; whether it was."""
        if not no_space(err):
            return False
        with self._lock:
            self._last = time.monotonic()
            self.count += 1
        return True

    def seconds_since(self) -> float | None:
        """Seconds since the last full-disk error, None if there was none."""
        with self._lock:
            return None if self._last is None else time.monotonic() - self._last
