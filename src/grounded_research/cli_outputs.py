"""The files a command writes (`--out`, `--evidence`, `--html`): checked before the run, written
whole, and not lost when writing them fails at the end.

A run takes minutes; a misspelt folder must not cost them. So before any work each output
must name a file in an existing folder that takes new files, and no two outputs (nor an
output and an input) may be one file, however spelt: relative, through `..` or through
a symlink. At the end each is written with `files.write_atomic`, through a symlink to
the file it names; a device or a pipe (`/dev/stdout`) is written in place, never replaced.
If the asked file cannot be written then (the folder went read-only, the disk is full),
the content goes to a new file in the working folder, or else in the temporary folder,
and `Saved` says where, for the command to print.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grounded_research.errors import InputError
from grounded_research.files import write_atomic


@dataclass(frozen=True)
class Saved:
    """Where one output went: `path` is the asked file, a new file elsewhere (and then
    `error` says why not the asked one), or None when nothing took it."""

    option: str
    what: str  # "report", "evidence table", "results": its name in a summary
    asked: Path
    path: Path | None
    error: str = ""

    def problem(self) -> str:
        """The line a command prints when the output is not where it was asked."""
        if not self.error:
            return ""
        failed = f"cannot write {self.option} {self.asked} ({self.error})"
        if self.path is None:
            return f"{failed}, nor a copy in the working or temporary folder"
        return f"{failed}: written to {self.path} instead"


def check_outputs(
    outputs: dict[str, Path | None], inputs: dict[str, str | Path | None] | None = None
) -> None:
    """Refuse, as bad input, outputs that could not be written or would overwrite each
    other or an input."""
    taken = [(name, Path(path)) for name, path in (inputs or {}).items() if path]
    for option, path in outputs.items():
        if path is None:
            continue
        _check_writable(option, path)
        for other, earlier in taken:
            if _same_file(path, earlier):
                first, second = sorted((option, other), key=_option_order)
                raise InputError(f"{first} and {second} are one file: {path}")
        taken.append((option, path))


def save(option: str, what: str, path: Path, data: str) -> Saved:
    """Write `data` to `path`, or else to a new file in the working or temporary folder."""
    try:
        _write(path, data)
        return Saved(option, what, path, path)
    except OSError as error:
        reason = error.strerror or str(error)
    name = path.expanduser().name or "output"
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        with contextlib.suppress(OSError):
            return Saved(option, what, path, _write_new_file(folder, name, data), reason)
    return Saved(option, what, path, None, reason)


def _check_writable(option: str, path: Path) -> None:
    spelt = path.expanduser()
    if spelt.is_dir():
        raise InputError(f"{option}: {path} is a folder")
    if _is_device_or_pipe(spelt):
        return
    folder = spelt.resolve().parent
    if not folder.is_dir():
        raise InputError(f"{option}: folder not found: {folder}")
    try:  # the one true test: permissions, read-only mounts and ACLs all answer it
        handle, probe = tempfile.mkstemp(dir=folder, prefix=f".{spelt.name}.", suffix=".probe")
    except OSError as error:
        raise InputError(f"{option}: cannot write in {folder}: {error.strerror}") from error
    os.close(handle)
    os.unlink(probe)


def _write(path: Path, data: str) -> None:
    spelt = path.expanduser()
    if _is_device_or_pipe(spelt):
        with spelt.open("w", encoding="utf-8") as out:
            out.write(data)
    else:
        write_atomic(spelt.resolve(), data)


def _write_new_file(folder: Path, name: str, data: str) -> Path:
    """`data` in a file of `folder` named after `name` that did not exist before."""
    stem, suffix = os.path.splitext(name)
    handle, reserved = tempfile.mkstemp(dir=folder, prefix=f"{stem}-", suffix=suffix)
    os.close(handle)
    try:
        write_atomic(Path(reserved), data)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(reserved)
        raise
    return Path(reserved)


def _is_device_or_pipe(path: Path) -> bool:
    return path.exists() and not path.is_file() and not path.is_dir()


def _same_file(first: Path, second: Path) -> bool:
    one, other = first.expanduser(), second.expanduser()
    if one.resolve() == other.resolve():
        return True
    return one.exists() and other.exists() and os.path.samefile(one, other)


def _option_order(option: str) -> int:
    """`--out`, `--evidence`, `--html` in messages, as the help lists them."""
    order = ["--out", "--evidence", "--html"]
    return order.index(option) if option in order else len(order)
