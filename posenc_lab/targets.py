"""Where the lab may write a file it makes (a checkpoint, results.json): checked before anything is trained.

A file is written atomically, to a temporary file beside it renamed over it, and only to a new name in a folder
this process can write in, or over a file that already holds what is being written (a lab checkpoint over a lab
checkpoint: what a retrain means). Never a device node, a symbolic link, a folder, a pipe or socket, or a file of
another kind (a ``--out`` of ``/dev/null`` run as root must not replace the node, nor ``notes.txt`` a person's
notes).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from posenc_lab.limits import shown


class TargetError(ValueError):
    """A path the lab will not write to: the message says why and names the path."""


def check_target(path: str | os.PathLike, holds: Callable[[Path], bool], kind: str) -> Path:
    """``path`` as a Path if a file may be written there atomically (a temporary file beside it, renamed over it):
    a new name in a folder this process can write in (missing folders are made when saving), or an existing
    regular file that ``holds`` says is ours (a lab checkpoint: overwriting it is what a retrain means); ``kind``
    names what is written, in the message.
    :class:`TargetError` saying why otherwise, before anything is trained or written: an empty name, a folder,
    a symbolic link, a device, pipe or socket, a file of another kind, a path under a file, an unwritable folder."""
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise TargetError(f"the {kind} needs a file name (got {shown(text)})")
    target = Path(text)
    if text.endswith(("/", os.sep)) or target.name in ("", ".", ".."):
        raise TargetError(f"{kind} path {text} names a folder: give a file name, e.g. {target / 'model.pt'}")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        info = None  # a part of the path is a file: said below, where that part is found
    except OSError as error:
        raise TargetError(f"{kind} path {text} cannot be used ({error.strerror})") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise TargetError(f"{kind} path {text} is a symbolic link: give the file itself, or a new name")
        if stat.S_ISDIR(info.st_mode):
            raise TargetError(f"{kind} path {text} is a folder: give a file name, e.g. {target / 'model.pt'}")
        if not stat.S_ISREG(info.st_mode):
            raise TargetError(f"{kind} path {text} is not a regular file (a device, pipe or socket): not written")
        if not holds(target):
            raise TargetError(
                f"{kind} path {text} is a file that holds no lab {kind}: it is not overwritten (remove it, or choose "
                "another name)"
            )
    folder = target.parent
    while True:
        try:
            if stat.S_ISDIR(folder.stat().st_mode):
                break
            raise TargetError(f"{kind} path {text} is under {folder}, which is a file, not a folder")
        except (FileNotFoundError, NotADirectoryError):
            if folder == folder.parent:
                raise TargetError(f"{kind} path {text} has no folder that exists") from None
            folder = folder.parent
        except OSError as error:
            raise TargetError(f"{kind} path {text} cannot be used ({error.strerror})") from None
    try:  # a real write, not os.access: the folder's permissions, a read-only disk, root or not
        handle, probe = tempfile.mkstemp(prefix=".posenc-write-check.", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise TargetError(f"{kind} path {text}: cannot write in folder {folder} ({error.strerror})") from None
    return target


def write_atomically(path: Path, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write`` on a temporary file beside ``path`` (its folders made), then rename it over ``path``: a reader
    sees the old file or the whole new one, and a failed write (a full disk, Ctrl-C) leaves no temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, file_mode())  # mkstemp's file is private (0600); what the lab writes is not
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def file_mode() -> int:
    """The mode a new file gets from this process's umask (0o644 under the usual 022): mkstemp's files are 0600."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
