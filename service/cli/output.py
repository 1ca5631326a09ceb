"""Files the command line writes (``--output FILE``, ``convert … OUT``): never half-written.

A regular file (or a new one) is written to a temporary file beside it, in the same folder,
and renamed into place only once every byte is written and synced: a reader, and a crash, see
the old file or the new one. On any error the temporary file is removed and the old file kept:
an ``export --output backup.nq`` onto a full disk replaced a good earlier dump with a truncated
one (explore52 F9).

A named pipe, a character device (``/dev/stdout``, ``/proc/self/fd/1``) or a socket is written as
a stream, as ``-`` is: a rename made a FIFO a regular file, its reader got nothing (explore47
F9). A symbolic link is never replaced (it became a regular file, its target untouched, and
``/dev/stdout`` itself was replaced when stdout was a file; explore49 F7, F8): it is followed,
and its target written as above, the temporary file beside the target; a link through a
process's descriptor (``/proc/self/fd/N``, ``/dev/fd/N``) to a regular file is written in place,
so that the descriptor the shell opened gets the bytes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from service.errors import BadRequest, os_error_said


def check_output(out: Path) -> None:
    """Refuse, before any work, an OUT that is a folder, in a folder that does not exist, a
    dangling link, or a read-only file (it was replaced, and came back writable; explore44
    18): each said with OUT's name, not as a traceback after the work was done."""
    if out.is_symlink() and not out.exists():
        raise BadRequest(
            f"{out}: cannot write: it is a link to {os.readlink(out)}, which does not exist "
            "(a link is never replaced and not followed to make a file: expected a link to "
            "an existing file, or another name)"
        )
    if out.is_dir():
        raise BadRequest(f"{out}: cannot write: it is a folder (expected a file name in it)")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise BadRequest(f"{out}: cannot write: {folder} {what} (expected an existing folder)")
    if out.exists() and not out.stat().st_mode & 0o222:
        raise BadRequest(
            f"{out}: is read-only: not replaced (expected a file that may be written: "
            "make it writable, remove it, or write another)"
        )


def write_output(path: Path, data: bytes) -> str:
    """Write ``data`` to ``path`` as the module says; what was written, for "wrote …": the
    file, or a link's target and the link (it said "wrote LINK", the file it led to unnamed)."""
    with output_file(path) as (out, said):
        out.write(data)
    return said


@contextmanager
def output_file(path: Path) -> Iterator[tuple[IO[bytes], str]]:
    """A binary handle to write ``path``'s new content to, and what to call it (as
    :func:`write_output` returns). The file is replaced when the block ends without an
    error; an error (an OS error said in one line, as :class:`BadRequest`) leaves it as it was."""
    if path.is_symlink():
        target = Path(os.path.realpath(path))
        said = f"{target} (through the link {path})"
        if target.is_file() and not _through_a_descriptor(path):
            with _replacing(target) as out:
                yield out, said
        else:
            with _stream(path) as out:
                yield out, said
    elif path.exists() and not path.is_file():  # a FIFO, a device, a socket
        with _stream(path) as out:
            yield out, str(path)
    else:
        with _replacing(path) as out:
            yield out, str(path)


@contextmanager
def _stream(path: Path) -> Iterator[IO[bytes]]:
    try:
        with open(path, "wb") as stream:
            yield stream
    except OSError as err:
        raise BadRequest(f"{path}: cannot write: {os_error_said(err)}") from None


@contextmanager
def _replacing(path: Path) -> Iterator[IO[bytes]]:
    directory = path.parent if str(path.parent) else Path(".")
    existed = path.is_file()
    temporary: Path | None = None
    try:
        try:
            mode = path.stat().st_mode & 0o7777 if existed else _new_file_mode()
        except OSError:
            mode = _new_file_mode()
        with tempfile.NamedTemporaryFile(
            dir=directory, prefix=f".{path.name}.", suffix=".tmp", delete=False
        ) as handle:
            temporary = Path(handle.name)
            yield handle
            handle.flush()
            os.fsync(handle.fileno())  # a crash after the rename must not leave it empty
        os.chmod(temporary, mode)  # a temporary file is 0600: OUT is not one
        os.replace(temporary, path)
        temporary = None
    except OSError as err:  # a full disk, a folder not ours: said, not a traceback
        kept = f"the earlier {path} is kept as it was" if existed else "nothing was written"
        raise BadRequest(f"{path}: cannot write: {os_error_said(err)}; {kept}") from None
    finally:
        if temporary is not None:
            temporary.unlink(missing_ok=True)


def _through_a_descriptor(path: Path) -> bool:
    """Whether following the link ``path`` passes through ``/proc/PID/fd/N`` or
    ``/dev/fd/N`` (as ``/dev/stdout`` does): such a link names an open descriptor's file."""
    current = Path(os.path.abspath(path))
    for _ in range(40):  # the kernel's own bound on links followed
        parts = current.parts
        if (len(parts) >= 4 and parts[1] == "proc" and parts[3] == "fd") or (
            len(parts) >= 3 and parts[1:3] == ("dev", "fd")
        ):
            return True
        if not current.is_symlink():
            return False
        current = Path(os.path.abspath(current.parent / os.readlink(current)))
    return False


def _new_file_mode() -> int:
    """The mode ``open()`` gives a new file: 0666 less the umask (read only by setting it)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask
