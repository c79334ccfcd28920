"""Reading an ``.npz`` header first: what every array is (its name, shape and dtype) is
read from the archive's ``.npy`` headers before any of its data, so a tool can check the
arrays against what it expects and against its memory budget first. The data are then
read member by member, exactly as many bytes as the header declares (a compressed member
is decompressed as it is read): never more than the header says, whatever the archive
claims about its sizes.

Every way such a file can be wrong is an :class:`NpzError` in plain words: not a file, an
empty file, a bare ``.npy``, bytes that are not a zip archive, a truncated or damaged
archive, a member that is not an array, an object or structured array, data shorter or
longer than its header.
"""

from __future__ import annotations

import math
import os
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
from numpy.lib import format as npy_format

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a member first, or an empty archive
_CHUNK = 1 << 22  # bytes read from a member at a time


class NpzError(Exception):
    """An ``.npz`` that cannot be read as one (the message names the file and the fix)."""


@dataclass(frozen=True)
class NpzMember:
    """One array of an ``.npz``, as its header describes it."""

    key: str  # the name numpy.savez gave it (the member name without ``.npy``)
    member: str  # the zip member's name
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    fortran_order: bool

    @property
    def value_dtype(self) -> np.dtype[Any]:
        """The dtype :meth:`NpzArchive.read` returns: the stored one in native byte order
        (a big-endian array is read as the same values)."""
        if self.dtype.byteorder in ("=", "|"):
            return self.dtype
        return self.dtype.newbyteorder("=")

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


class NpzArchive:
    """An open ``.npz`` whose headers have been read (:func:`open_npz`)."""

    def __init__(self, path: str, archive: zipfile.ZipFile, members: dict[str, NpzMember]):
        self.path = path
        self.archive = archive
        self.members = members

    def read(self, key: str) -> np.ndarray:
        """The array ``key``: its header's bytes exactly, CRC-checked."""
        member = self.members[key]
        try:
            with self.archive.open(member.member) as stream:
                _read_header(stream)
                array = _read_data(stream, member)
                if stream.read(1):
                    raise NpzError(
                        f"{key} in {self.path!r} holds more data than its header declares "
                        f"(shape {member.shape}, {member.dtype}); write the file again with "
                        "numpy.savez"
                    )
        except zipfile.BadZipFile as err:  # a CRC mismatch found at the member's end
            raise NpzError(_damaged(self.path, f"{key}: {err}")) from None
        except (OSError, EOFError, ValueError) as err:
            raise NpzError(_damaged(self.path, f"{key}: {err}")) from None
        if array.dtype.byteorder not in ("=", "|"):  # big-endian: the same values, native
            array = array.astype(array.dtype.newbyteorder("="))
        return array


def _damaged(path: str, detail: str) -> str:
    return (
        f"cannot read inputs {path!r}: the archive is damaged or truncated ({detail}); "
        "write it again with numpy.savez"
    )


def _read_header(stream: IO[bytes]) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    version = npy_format.read_magic(stream)
    if version == (1, 0):
        return npy_format.read_array_header_1_0(stream)
    if version in ((2, 0), (3, 0)):
        return npy_format.read_array_header_2_0(stream)
    raise ValueError(f"unsupported .npy format version {version}")


def _read_data(stream: IO[bytes], member: NpzMember) -> np.ndarray:
    """Exactly ``member.nbytes`` bytes from ``stream`` into a fresh array."""
    count = math.prod(member.shape)
    flat = np.empty(count, dtype=member.dtype)
    raw = memoryview(flat.view(np.uint8).reshape(-1).data) if flat.nbytes else memoryview(b"")
    filled = 0
    while filled < len(raw):
        chunk = stream.read(min(_CHUNK, len(raw) - filled))
        if not chunk:
            raise NpzError(
                f"{member.key} is shorter than its header declares: {filled} of "
                f"{len(raw)} bytes (shape {member.shape}, {member.dtype})"
            )
        raw[filled : filled + len(chunk)] = chunk
        filled += len(chunk)
    order = "F" if member.fortran_order else "C"
    return flat.reshape(member.shape, order=order)


def _unsupported_dtype(dtype: np.dtype[Any]) -> str | None:
    if dtype.hasobject:
        return (
            "holds Python objects (dtype object), which are not loaded (loading them can "
            "run code); save a numeric array"
        )
    if dtype.names is not None:
        return f"has the structured dtype {dtype.descr}; give a plain array"
    if dtype.subdtype is not None:
        return f"has the sub-array dtype {dtype.str}; give a plain array"
    if dtype.kind not in "biufcV":
        return f"has dtype {dtype} (kind {dtype.kind!r}), which holds no numbers"
    return None


def _check_file(path: str, limit: int | None, bound: str) -> None:
    try:
        info = os.stat(path)
    except OSError as err:
        raise NpzError(f"cannot open inputs {path!r}: {err.strerror or err}") from None
    if not stat.S_ISREG(info.st_mode):
        raise NpzError(f"cannot read inputs {path!r}: not a regular file; give an .npz file")
    if info.st_size == 0:
        raise NpzError(
            f"cannot read inputs {path!r}: the file is empty; write an .npz with "
            "numpy.savez (keys arg0, arg1, ...)"
        )
    if limit is not None and info.st_size > limit:
        raise NpzError(
            f"cannot read inputs {path!r}: the file is {info.st_size / (1 << 30):.3g} GiB, "
            f"more than {bound}; use smaller inputs, or --max-memory SIZE (0: no limit)"
        )


@contextmanager
def open_npz(
    path: str, max_members: int = 4096, max_bytes: int | None = None, bound: str = ""
) -> Iterator[NpzArchive]:
    """Open ``path`` and read every member's header (nothing else): the archive, its
    arrays by key. ``max_members`` bounds the archive's entries read; a file larger than
    ``max_bytes`` (when given; ``bound`` names that limit) is refused before it is
    opened."""
    _check_file(path, max_bytes, bound)
    try:
        with open(path, "rb") as stream:
            start = stream.read(len(NPY_MAGIC))
    except OSError as err:
        raise NpzError(f"cannot open inputs {path!r}: {err.strerror or err}") from None
    if start.startswith(NPY_MAGIC):
        raise NpzError(f"inputs {path!r} is a single .npy array; give an .npz with keys arg0, ...")
    if not start.startswith(ZIP_MAGICS):
        raise NpzError(
            f"cannot read inputs {path!r}: it is not an .npz file (write one with "
            "numpy.savez, keys arg0, arg1, ...)"
        )
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as err:
        detail = getattr(err, "strerror", None) or "no zip directory at its end"
        raise NpzError(_damaged(path, str(detail))) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > max_members:
            raise NpzError(
                f"cannot read inputs {path!r}: it has {len(infos)} entries, more than "
                f"{max_members}; give an .npz holding the function's arguments only"
            )
        members: dict[str, NpzMember] = {}
        for info in infos:
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            members[key] = _member(path, archive, info, key)
        yield NpzArchive(path, archive, members)


def _member(path: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo, key: str) -> NpzMember:
    """The header of one member (a few hundred bytes read, decompressed if need be)."""
    if not info.filename.endswith(".npy"):
        raise NpzError(
            f"cannot read inputs {path!r}: its entry {info.filename!r} is not an array "
            "(numpy.savez writes NAME.npy entries only)"
        )
    try:
        with archive.open(info) as stream:
            shape, fortran_order, dtype = _read_header(stream)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, SyntaxError) as err:
        raise NpzError(
            f"cannot read inputs {path!r}: {key} is not a readable array (its .npy header: "
            f"{err}); write the file again with numpy.savez"
        ) from None
    if (problem := _unsupported_dtype(dtype)) is not None:
        raise NpzError(f"{key} in {path!r} {problem}")
    return NpzMember(key, info.filename, tuple(shape), dtype, fortran_order)


__all__ = ["NpzArchive", "NpzError", "NpzMember", "open_npz"]
