#!/usr/bin/env python3
"""Unpacks a student's submission (.tar, .tar.gz, .tgz or .zip) into a folder, safely.

usage: unpack.py ARCHIVE FOLDER

A submission is hostile input, and ./workbook may run as root. So nothing of the archive decides
an owner, a mode or a file type: plain files are written afresh (mode 0644, owned by whoever
unpacks), folders made (0755); links, devices, FIFOs and sockets are skipped and listed; a name that
is absolute or climbs out with '..' refuses the whole archive; and the bytes really written (not
the sizes the archive claims) and the number of entries are capped. Exit 0: unpacked; 1: refused,
with the reason on stderr; 2: not an archive that can be read, with tar's or zip's own reason.
Every name it says is the student's text, and is said as data (as_data()).
"""
import os
import stat
import sys
import tarfile
import zipfile

MAX_BYTES = int(os.environ.get("WORKBOOK_UNPACK_MAX_MIB", "64")) * 1024 * 1024
MAX_ENTRIES = int(os.environ.get("WORKBOOK_UNPACK_MAX_FILES", "10000"))
CHUNK = 1 << 16


class Refused(Exception):
    pass


def as_data(text):
    """`text` as one line of data, as grader/protocol/as_data.h writes any text of a student's: a
    member's name said raw could hold an escape sequence that the instructor's terminal obeys.
    "\\n", "\\r" and "\\t" as C writes them, and as "\\x" and two hex digits each byte of every other
    control character (C0, DEL, C1) and each byte that is not UTF-8; all else as it is."""
    shown = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as tarfile keeps it (surrogateescape)
            shown.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:  # any other lone surrogate: no text, and no byte print() could write
            shown.append("".join(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass")))
        elif char in "\n\r\t":
            shown.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char])
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            shown.append("".join(f"\\x{byte:02x}" for byte in char.encode("utf-8")))
        else:
            shown.append(char)
    return "".join(shown)


def safe_path(folder, name):
    """Where member `name` goes under `folder`; refuses names that would leave it."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or ".." in parts:
        raise Refused(f"its member '{as_data(name)}' would be written outside the folder it is unpacked into")
    parts = [p for p in parts if p not in ("", ".")]
    return os.path.join(folder, *parts) if parts else None


class Writer:
    def __init__(self, folder):
        self.folder, self.bytes, self.entries, self.skipped = folder, 0, 0, []

    def count(self):
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise Refused(f"it holds more than {MAX_ENTRIES} entries")

    def folder_for(self, name):
        self.count()
        path = safe_path(self.folder, name)
        if path:
            os.makedirs(path, mode=0o755, exist_ok=True)

    def file(self, name, stream):
        self.count()
        path = safe_path(self.folder, name)
        if path is None:
            return
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        if os.path.lexists(path):
            raise Refused(f"its member '{as_data(name)}' appears twice")
        # O_EXCL and O_NOFOLLOW: a file of ours, never one a link points at.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            while True:
                chunk = stream.read(CHUNK)
                if not chunk:
                    break
                self.bytes += len(chunk)
                if self.bytes > MAX_BYTES:
                    raise Refused(f"it unpacks to more than {MAX_BYTES // (1024 * 1024)} MiB")
                out.write(chunk)

    def skip(self, name, kind):
        self.count()
        self.skipped.append(f"{as_data(name)} ({kind})")


def unpack_tar(path, writer):
    with tarfile.open(path) as archive:
        for member in archive:
            if member.isdir():
                writer.folder_for(member.name)
            elif member.isreg():
                writer.file(member.name, archive.extractfile(member))
            else:
                kind = "a link" if member.issym() or member.islnk() else "a device, FIFO or other special file"
                safe_path(writer.folder, member.name)
                writer.skip(member.name, kind)


def unpack_zip(path, writer):
    with zipfile.ZipFile(path) as archive:
        for member in archive.infolist():
            mode = member.external_attr >> 16
            if member.is_dir():
                writer.folder_for(member.filename)
            elif stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                safe_path(writer.folder, member.filename)
                writer.skip(member.filename, "a link or special file")
            else:
                with archive.open(member) as stream:
                    writer.file(member.filename, stream)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, folder = sys.argv[1], sys.argv[2]
    os.makedirs(folder, mode=0o755, exist_ok=True)
    writer = Writer(folder)
    try:
        if path.lower().endswith(".zip"):
            unpack_zip(path, writer)
        else:
            unpack_tar(path, writer)
    except Refused as refused:
        print(f"refused: {refused}", file=sys.stderr)
        return 1
    except (tarfile.TarError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError,
            NotImplementedError, RuntimeError) as error:
        tool = "zip" if path.lower().endswith(".zip") else "tar"
        print(f"{tool} says: {as_data(str(error))}", file=sys.stderr)
        return 2
    for entry in writer.skipped:
        print(f"skipped {entry}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
