"""The page files of a vault and the stamp of their stats: what every cached answer is checked
against on every query.

Lean on purpose: the warm path (`quick`) lists and stamps the vault before it loads anything
else, so this module imports nothing beyond the standard library's cheapest parts.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from operator import itemgetter

TYPE_CHECKING = False  # not typing's: importing typing costs more than listing a small vault
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    Stat = tuple[str, int, int, int]  # the fields of `vault.PageFile`: path, changed, size, inode
    #: a block's files' change times, sizes and inodes, each as 64-bit numbers' bytes
    Columns = tuple[bytes, bytes, bytes]
    Rules = tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    Listing = tuple[Rules, list[Stat], list[str]]

DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


#: The listing the warm path (`quick`) made moments ago in this process, handed to the CLI it
#: gives the query to: ((root, extensions, hidden, skipped), files, warnings). Every listing of
#: that query takes it (the summary's check, then the index a graph is built from: one
#: snapshot, as one listing would be); `quick` takes it back when the query is answered.
HANDED: Listing | None = None
#: Files per block of `stamp`: a summary's side file keeps each block's digest, so a patch finds
#: the changed files by comparing a hundred digests, not every file's stat (`sidecar`).
BLOCK = 1024
#: A folder with this many page files has them stat-ed by two processes (`_stat_split`): a
#: fork, a pipe and a wait cost about a millisecond, a stat about three microseconds.
SPLIT_STAT = 4096
#: The listing `blocks` last digested, its digests, each block's newest change time and its
#: stat columns (`block_stats`): the handed listing is not digested twice (a tenth of a second
#: at 100,000 files), nor stepped through again for its newest file (`newest`) or its stats.
#: By identity: a listing is never changed once made.
_DIGESTED: tuple[Sequence[Stat], list[bytes], list[int], list[Columns]] | None = None


def page_files(
    root: str,
    extensions: tuple[str, ...],
    hidden: tuple[str, ...],
    skipped: tuple[str, ...],
    warnings: list[str],
    stat: bool = True,
    links: list[str] | None = None,
) -> list[Stat]:
    """Page files below ``root`` in path order, as the fields of `vault.PageFile` (a plain tuple
    is made a third faster), named with one of ``extensions`` (any case); dot-named ones,
    hidden ones (``hidden``: folder or file prefixes) and the top-level folders ``skipped``
    (the flavor's: Logseq's own) skipped. Depth first: a loop, not recursion, over folders
    opened once each, every file stat-ed relative to its folder, a large folder's by two
    processes (`_stat_split`): this runs on every query over tens of thousands of files.
    Only regular files are pages (a FIFO named ``x.md`` would hang a read); a folder reached
    twice through links is listed once. Without ``stat``, stat fields are 0. ``links``: gets
    the path of each link followed and each folder reached twice (`relisted` needs none)."""
    rules = (root, extensions, hidden, skipped)
    if HANDED is not None and stat and links is None and HANDED[0] == rules:
        _, files, said = HANDED
        warnings.extend(said)
        return files
    found: list[Stat] = []
    folders: list[tuple[str, str]] = [(root, "")]
    seen: set[tuple[int, int]] = set()
    while folders:
        folder, prefix = folders.pop()
        try:
            fd = os.open(folder, DIR_FLAGS)
        except OSError as exc:
            warnings.append(f"{prefix or '.'}: cannot list folder: {exc.strerror}")
            continue
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) in seen:
                if links is not None:
                    links.append(prefix)
                continue
            seen.add((st.st_dev, st.st_ino))
            kept = (extensions, hidden, skipped, links)
            _folder(root, fd, folder, prefix, kept, stat, folders, found, warnings)
        except OSError as exc:
            warnings.append(f"{prefix or '.'}: cannot list folder: {exc.strerror}")
        finally:
            os.close(fd)
    found.sort(key=itemgetter(0))  # by path alone: a third of the time of comparing tuples
    return found


def _folder(
    root: str,
    fd: int,
    folder: str,
    prefix: str,
    rules: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], list[str] | None],
    stat: bool,
    folders: list[tuple[str, str]],
    found: list[Stat],
    warnings: list[str],
) -> None:
    extensions, hidden, skipped, links = rules
    add, plain = found.append, []  # plain: regular files, stat-ed after the folder is read
    with os.scandir(fd) as entries:
        for entry in entries:
            name = entry.name
            if name[0] == "." or (hidden and is_hidden(prefix + name, hidden)):
                continue
            try:
                if entry.is_file(follow_symlinks=False):  # most entries: no link, no folder
                    if name.endswith(extensions) or name.lower().endswith(extensions):
                        plain.append(name)  # (most names end in lower case: no copy made)
                elif entry.is_symlink() and not _inside(f"{folder}/{name}", root):
                    warnings.append(f"{prefix}{name}: symbolic link to outside the vault, skipped")
                else:
                    if links is not None and entry.is_symlink():
                        links.append(prefix + name)  # inside the vault: followed
                    if entry.is_dir():
                        if prefix or name not in skipped:
                            folders.append((f"{folder}/{name}", f"{prefix}{name}/"))
                    elif name.lower().endswith(extensions):
                        if not entry.is_file():  # a FIFO would hang a read; no device either
                            warnings.append(f"{prefix}{name}: not a regular file, skipped")
                        elif stat:
                            add(_fields(prefix + name, entry.stat()))
                        else:
                            add((prefix + name, 0, 0, 0))
            except OSError as exc:  # a link loop, a file gone meanwhile
                warnings.append(f"{prefix}{name}: skipped: {exc.strerror}")
    if not stat:
        found.extend((prefix + name, 0, 0, 0) for name in plain)
    elif len(plain) >= SPLIT_STAT and can_fork() and len(os.sched_getaffinity(0)) > 1:
        _stat_split(fd, prefix, plain, found, warnings)
    else:
        _stat_here(fd, prefix, plain, found, warnings)


def changed_ns(st: os.stat_result) -> int:
    """A file's change time: the later of its mtime and its ctime, which nothing can set back
    (`vault.PageFile.changed_ns`)."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


def _fields(rel: str, st: os.stat_result) -> Stat:
    """A listed file's fields (`vault.PageFile`)."""
    return (rel, changed_ns(st), st.st_size, st.st_ino)


def _stat_here(
    fd: int, prefix: str, names: list[str], found: list[Stat], warnings: list[str]
) -> None:
    """Each of ``names`` (in the folder open as ``fd``) with its stat, into ``found``."""
    add, stat_at = found.append, os.stat
    for name in names:
        try:  # relative to the folder: faster than entry.stat() or a whole path
            st = stat_at(name, dir_fd=fd, follow_symlinks=False)
        except OSError as exc:  # gone meanwhile
            warnings.append(f"{prefix}{name}: skipped: {exc.strerror}")
            continue
        add(_fields(prefix + name, st))


def _stat_split(
    fd: int, prefix: str, names: list[str], found: list[Stat], warnings: list[str]
) -> None:
    """`_stat_here`, the second half in a forked child meanwhile: a stat is mostly the system
    call, so two cores take about two thirds of the time (a large Logseq vault keeps tens of
    thousands of pages in one folder). The child sends `_stat_numbers`; if it sends anything
    else (it failed), this process stats its half too."""
    half = len(names) // 2
    theirs = names[half:]
    with Forked(lambda: _stat_numbers(fd, theirs)) as child:
        _stat_here(fd, prefix, names[:half], found, warnings)
        data = child.result()
    n = len(theirs)
    if len(data) != 24 * n:
        _stat_here(fd, prefix, theirs, found, warnings)
        return
    changed, rest = array("q", data[: 8 * n]), array("Q", data[8 * n :])
    for name, when, size, inode in zip(theirs, changed, rest[0::2], rest[1::2], strict=True):
        if size == _FAILED:
            warnings.append(f"{prefix}{name}: skipped: {os.strerror(when)}")
        else:
            found.append((prefix + name, when, size, inode))


class Forked:
    """The bytes ``job()`` makes in a forked child while this process goes on: `result` reads
    them (fewer or none if the child failed, or could not be forked). A job may also make its
    bytes piece by piece (an iterator of bytes), each sent as it comes, which `available`
    takes without waiting; ``room``: how many bytes the pipe may hold before the child waits
    for this process to read (Linux's `F_SETPIPE_SZ`; else the system's). Use it as a
    context: on leaving, the pipe is closed (a child blocked on a full pipe fails its write and
    leaves) and the child waited for, or, on an error here, ended first (its work is not
    wanted). The child leaves at once, whatever happens, running nothing of this process's (no
    exit handler, no buffered output flushed twice)."""

    def __init__(self, job: Callable[[], bytes | Iterator[bytes]], room: int = 0) -> None:
        self.pid, self.pipe = 0, None
        read_end, write_end = os.pipe()
        if room:
            _widen(write_end, room)
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return
        if pid == 0:
            try:
                os.close(read_end)
                made = job()
                for piece in [made] if isinstance(made, bytes) else made:
                    view = memoryview(piece)
                    while view:
                        view = view[os.write(write_end, view) :]
            finally:
                os._exit(0)
        os.close(write_end)  # before any other child is forked: it would keep the pipe open
        self.pid, self.pipe = pid, open(read_end, "rb")

    def result(self) -> bytes:
        """Every byte the child sends from now on, once it has ended."""
        return self.pipe.read() if self.pipe is not None else b""

    def available(self) -> bytes:
        """The bytes the child has sent and this process not read yet, without waiting."""
        if self.pipe is None:
            return b""
        fd, pieces = self.pipe.fileno(), []
        os.set_blocking(fd, False)
        try:
            while piece := os.read(fd, ROOM_READ):
                pieces.append(piece)
        except BlockingIOError:
            pass  # nothing more yet
        finally:
            os.set_blocking(fd, True)
        return b"".join(pieces)

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        if self.pipe is not None:
            self.pipe.close()
            self.pipe = None
            if error is not None:
                import signal

                try:
                    os.kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass  # gone already
            os.waitpid(self.pid, 0)


#: The most bytes `Forked.available` reads at once.
ROOM_READ = 1 << 20


def _widen(fd: int, room: int) -> None:
    """Let the pipe ``fd`` hold ``room`` bytes, where the system allows it."""
    import fcntl

    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, room)
    except (AttributeError, OSError):
        pass  # a smaller pipe: the child waits for this process's reads more often


#: The size `_stat_numbers` gives a file whose stat failed (its change time is the error number).
_FAILED = 2**64 - 1


def _stat_numbers(fd: int, names: list[str]) -> bytes:
    """Each of ``names``' change time (`vault.PageFile.changed_ns`; signed: before 1970), then
    each one's size and inode (unsigned: overlayfs and NFS may use an inode's top bit), as
    64-bit numbers in native order."""
    changed, rest = array("q"), array("Q")
    add_changed, add, stat_at = changed.append, rest.extend, os.stat
    for name in names:
        try:
            st = stat_at(name, dir_fd=fd, follow_symlinks=False)
        except OSError as exc:
            add_changed(exc.errno or 0)
            add((_FAILED, 0))
            continue
        add_changed(changed_ns(st))
        add((st.st_size, st.st_ino))
    return changed.tobytes() + rest.tobytes()


def can_fork() -> bool:
    """Fork only where it is the platform's cheap, safe default: Linux, no other threads (a
    fork copies none of them, and the locks they hold stay held)."""
    import sys

    if sys.platform != "linux":
        return False
    threading = sys.modules.get("threading")  # not imported: no thread was started by it
    return threading is None or threading.active_count() == 1


def _inside(path: str, root: str) -> bool:
    from .files import inside  # only for links, which few vaults hold

    return inside(path, root)


def is_hidden(rel: str, hidden: tuple[str, ...]) -> bool:
    """Whether ``rel`` is one of the ``hidden`` paths or below one."""
    for entry in hidden:
        h = entry.strip("/")
        if h and (rel == h or rel.startswith(h + "/")):
            return True
    return False


def unlisted(
    rel: str, extensions: tuple[str, ...], hidden: tuple[str, ...], skipped: tuple[str, ...]
) -> str | None:
    """Why `page_files` skips the vault-relative path ``rel`` by its name alone (None: it lists
    a regular file there): the one statement of its rules for a single path, so that a file
    journal-agent writes is one its own queries read."""
    parts = rel.split("/")
    for part in parts:
        if not part:
            return "an empty name in the path"
        if part[0] == ".":
            return f"{part!r} starts with a dot: hidden"
    if len(parts) > 1 and parts[0] in skipped:
        return f"{parts[0]!r} is a top-level folder of no pages"
    if hidden and is_hidden(rel, hidden):
        entry = next(h for h in hidden if is_hidden(rel, (h,)))
        return f"{entry!r} is hidden by the vault's settings"
    if not parts[-1].lower().endswith(extensions):
        return f"no page extension: {', '.join(extensions)}"
    return None


def relisted(
    root: str,
    extensions: tuple[str, ...],
    hidden: tuple[str, ...],
    skipped: tuple[str, ...],
    files: list[Stat],
    changed: Iterable[str],
) -> list[Stat] | None:
    """``files``, a `page_files` listing that met no link, no folder twice and no warning, as
    `page_files` would list the vault now if only the paths ``changed`` (vault-relative) may
    have changed, come or gone since: each of them stat-ed alone, not the whole vault (a running
    `watch` knows them from the file events). None where one of them is not that plain case (a
    link, an unreadable folder, anything but a regular file): list the vault in full. Where no
    file came or went, the listing's `blocks` are digested again only where a file changed."""
    global _DIGESTED
    out = list(files)  # a new list: a listing is never changed once made (`blocks`)
    touched: set[int] = set()
    moved = False
    for rel in sorted(set(changed)):
        try:
            now = _page_stat(root, rel, (extensions, hidden, skipped))
        except _NotPlain:
            return None
        i = bisect_left(out, rel, key=itemgetter(0))
        there = i < len(out) and out[i][0] == rel
        if now is not None and there:
            out[i] = now
            touched.add(i // BLOCK)
        elif now is not None:
            out.insert(i, now)
            moved = True
        elif there:
            del out[i]
            moved = True
    if not moved and _DIGESTED is not None and _DIGESTED[0] is files:
        digests, newest, columns = list(_DIGESTED[1]), list(_DIGESTED[2]), list(_DIGESTED[3])
        for n in touched:
            (digests[n],), (newest[n],), (columns[n],) = _digests(out[n * BLOCK : (n + 1) * BLOCK])
        _DIGESTED = (out, digests, newest, columns)
    return out


class _NotPlain(Exception):
    """A changed path that only a full listing lists right."""


_FILE, _FOLDER, _LINK, _KIND = 0o100000, 0o040000, 0o120000, 0o170000


def _page_stat(
    root: str, rel: str, rules: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
) -> Stat | None:
    """What `page_files` lists of the file at ``rel`` (``rules``: its extensions, hidden and
    skipped): its fields; None if it lists nothing there (no page file, or one it skips);
    `_NotPlain` where only a full listing can tell."""
    if unlisted(rel, *rules) is not None:
        return None
    parts = rel.split("/")
    path, last = root, len(parts) - 1
    for n, part in enumerate(parts):
        path = f"{path}/{part}"
        try:
            st = os.stat(path, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None  # gone, or its folder is
        except OSError as exc:
            raise _NotPlain from exc  # unreadable: a full listing warns
        kind = st.st_mode & _KIND
        if n == last:
            if kind != _FILE:
                raise _NotPlain  # a link, a FIFO, a folder named like a page
            return _fields(rel, st)
        if kind == _LINK:
            raise _NotPlain  # a folder reached through a link
        if kind != _FOLDER:
            return None  # a file where its folder would be
    return None


def stamp(fingerprint: str, files: Sequence[Stat]) -> str:
    """A digest of the settings (``fingerprint``) and every file's path and stat: a cached
    projection of the whole vault is valid while it is unchanged. Made of `blocks`."""
    from .digests import blake2b

    return blake2b(fingerprint.encode() + b"".join(blocks(files)), digest_size=16).hexdigest()


def blocks(files: Sequence[Stat]) -> list[bytes]:
    """A digest of each `BLOCK` files' paths and stats, in order (hashed in a few C calls a
    block)."""
    global _DIGESTED
    if _DIGESTED is None or _DIGESTED[0] is not files:
        _DIGESTED = (files, *_digests(files))
    return _DIGESTED[1]


def newest(files: Sequence[Stat]) -> int | None:
    """The newest change time of the listing ``files`` (None if it is empty): from its blocks where
    they were digested (a step through a hundred thousand scattered tuples costs 20 ms)."""
    if _DIGESTED is not None and _DIGESTED[0] is files:
        return max(_DIGESTED[2], default=None)
    return max(map(itemgetter(1), files), default=None)


def changed_after(files: Sequence[Stat], after: int) -> Iterator[Stat]:
    """The files of the listing ``files`` changed after ``after`` (ns), in order: looked for only
    in the blocks whose newest change is (`newest`), where they were digested."""
    blocks: Iterable[int] = range((len(files) + BLOCK - 1) // BLOCK)
    if _DIGESTED is not None and _DIGESTED[0] is files:
        blocks = [n for n in blocks if _DIGESTED[2][n] > after]
    for n in blocks:
        yield from (f for f in files[n * BLOCK : (n + 1) * BLOCK] if f[1] > after)


def block_stats(files: Sequence[Stat], n: int) -> Columns:
    """Block ``n``'s stat columns (`Columns`), kept where the listing was digested."""
    if _DIGESTED is not None and _DIGESTED[0] is files:
        return _DIGESTED[3][n]
    return _digests(files[n * BLOCK : (n + 1) * BLOCK])[2][0]


def _digests(files: Sequence[Stat]) -> tuple[list[bytes], list[int], list[Columns]]:
    """Each block's digest, its newest change time and its stat columns."""
    out, newest, stats = [], [], []
    for start in range(0, len(files), BLOCK):
        rels, changed, sizes, inodes = zip(*files[start : start + BLOCK], strict=True)
        columns = (
            array("q", changed).tobytes(),  # before 1970: negative
            array("Q", sizes).tobytes(),
            array("Q", inodes).tobytes(),  # overlayfs and NFS may use the top bit
        )
        out.append(block_digest(rels, *columns))
        newest.append(max(changed))
        stats.append(columns)
    return out, newest, stats


def block_digest(rels: Iterable[str], changed: bytes, sizes: bytes, inodes: bytes) -> bytes:
    """The digest of a block of `blocks`: its paths, and its files' change times, sizes and inodes
    as 64-bit numbers in native order."""
    from .digests import blake2b

    digest = blake2b("\0".join(rels).encode("utf-8", "surrogateescape"), digest_size=16)
    for column in (changed, sizes, inodes):
        digest.update(column)
    return digest.digest()


def probe(root: str, rels: tuple[str, ...]) -> list[list[object]]:
    """Each of ``rels`` (below ``root``) with what its stat says of it: a file's identity and
    change times; only that a folder is one (what it holds is listed, not its settings); only
    that a link is broken; or that nothing is there."""
    out: list[list[object]] = []
    for rel in rels:
        path = os.path.join(root, rel)
        try:
            st = os.stat(path)
        except OSError:
            out.append([rel, "link" if os.path.lexists(path) else "none"])
            continue
        if st.st_mode & 0o170000 == 0o040000:
            out.append([rel, "folder"])
        else:
            out.append([rel, "file", st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino])
    return out
