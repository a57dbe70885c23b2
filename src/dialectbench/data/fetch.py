"""Download, verify, cache and safely extract catalogue files.

Cache layout (`$DIALECTBENCH_CACHE`, default `~/.cache/dialectbench`):

    files/<catalogue path>      the file a reader reads (the cache is itself a mirror of the catalogue layout)
    downloads/<key>/<name>      downloaded archives (only the members the catalogue names are extracted)
    manifest.json               path -> sha256, size, source of every verified file

Guarantees: a download goes to a temporary file and is renamed into place only after its size and sha256 are
checked, so an interrupted or corrupt download never leaves a file a reader could pick up; connection
failures and short reads are retried; verified files are never downloaded again; archives with members with
absolute paths, `..` components, devices or links pointing outside the extraction folder are refused, and so
are archives that would expand beyond `ArchiveLimits` (bytes, ratio, members: decompression bombs).
"""

from __future__ import annotations

import gzip
import hashlib
import http.client
import json
import lzma
import os
import shutil
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dialectbench.data.catalogue import Entry, FileRef
from dialectbench.data.errors import DataError, DataNotAvailable
from dialectbench.extras import install_hint, missing

ENV_CACHE = "DIALECTBENCH_CACHE"
USER_AGENT = "dialectbench-data-fetch/0.1"


class FetchError(DataError):
    """A download or extraction failed; the message names the dataset/file and how to supply it by hand."""


class ChecksumMismatch(FetchError):
    """The downloaded bytes do not have the pinned sha256 (nothing is kept)."""


class Unreachable(FetchError):
    """Every attempt to reach the server failed (no network, DNS, refused, dropped connections)."""


class UnsafeArchive(FetchError):
    """An archive member would land outside the extraction folder (absolute path, `..`, escaping link)."""


class BadArchive(FetchError):
    """The downloaded file is not a readable zip or tar archive (damaged, truncated, something else)."""


def cache_root() -> Path:
    """The download cache: $DIALECTBENCH_CACHE or ~/.cache/dialectbench."""
    env = os.environ.get(ENV_CACHE)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "dialectbench"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# -------------------------------------------------------------------------------------------- download
DEFAULT_DEADLINE = 1800.0  # seconds for one attempt at one file, however slowly the bytes trickle in


def download(url: str, dest: Path, *, sha256: str | None = None, size: int | None = None, retries: int = 3,
             timeout: float = 30.0, backoff: float = 0.5, deadline: float = DEFAULT_DEADLINE) -> Path:
    """Download `url` to `dest` atomically (temp file + rename), verifying length and sha256.

    `size` (the catalogue's declared bytes) replaces the global download limit: a Content-Length that
    differs from it is refused before the body, a body that grows past it while streaming is cut off there,
    and neither is retried (the server would send the same again); fewer bytes are a short read.

    `timeout` bounds each socket operation, `deadline` a whole attempt (a server sending 1 byte/s never
    times out a read). Connection errors, short reads and 5xx answers are retried up to `retries` times.
    Only when no attempt got a connection is the error `Unreachable` (the caller then stops asking that
    host); a server that answers but fails raises a plain FetchError. A checksum mismatch is not retried
    (the server gave complete but wrong bytes) and raises ChecksumMismatch. Nothing but the verified file
    is ever left: the temp file goes on any error, and `.part` files of killed downloads (older than one
    deadline, so never a live one) are removed first."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(dest, deadline)
    last: Exception | None = None
    connected = False
    for attempt in range(1, retries + 1):
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                digest = _stream(url, out, timeout, deadline, size)
            if sha256 is not None and digest != sha256:
                raise ChecksumMismatch(f"{url}: sha256 {digest} does not match the pinned {sha256}")
            os.replace(tmp, dest)
            return dest
        except _NoConnection as err:
            last = err.__cause__ or err
        except (_TooSlow, _TooLarge) as err:  # retrying would only fetch as much again
            raise FetchError(f"{url}: {err}") from None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError, OSError,
                _ShortRead) as err:
            if isinstance(err, urllib.error.HTTPError) and err.code < 500:
                raise FetchError(f"{url}: HTTP {err.code} {err.reason}") from None
            connected, last = True, err
        finally:
            tmp.unlink(missing_ok=True)
        if attempt < retries:
            time.sleep(backoff * attempt)
    if connected:
        raise FetchError(f"{url}: download failed after {retries} attempts ({_describe(last)})")
    raise Unreachable(f"{url}: could not connect after {retries} attempts ({_describe(last)})")


def _describe(err: Exception | None) -> str:
    if isinstance(err, urllib.error.HTTPError):
        return f"HTTP {err.code} {err.reason}"
    if isinstance(err, urllib.error.URLError):
        return str(err.reason)
    return str(err) or type(err).__name__


def _remove_stale_parts(dest: Path, age: float) -> None:
    cutoff = time.time() - age
    for part in dest.parent.glob(f".{dest.name}.*.part"):
        try:
            if part.stat().st_mtime < cutoff:
                part.unlink()
        except OSError:  # gone meanwhile (another process cleaned it)
            pass


class _ShortRead(Exception):
    pass


class _NoConnection(Exception):
    """No response at all: DNS failure, refused or timed-out connection (the host may be down)."""


class _TooSlow(Exception):
    pass


class _TooLarge(Exception):
    pass


ENV_MAX_DOWNLOAD = "DIALECTBENCH_DOWNLOAD_MAX_BYTES"
MAX_DOWNLOAD = 1 << 30  # bytes of one download: every packaged source is a raw GitHub file (GitHub holds no
# file over 100 MB); a response without Content-Length is cut off here, while streaming, not written until
# the server stops, and a declared length over it is refused before the body


def max_download_bytes() -> int:
    """The per-download byte limit: MAX_DOWNLOAD, or $DIALECTBENCH_DOWNLOAD_MAX_BYTES."""
    return int(_env_number(ENV_MAX_DOWNLOAD, MAX_DOWNLOAD, whole=True))


def _stream(url: str, out, timeout: float, seconds: float, size: int | None = None) -> str:
    """Copy the response body to `out`; raise _ShortRead when fewer bytes than Content-Length (or the
    declared `size`) arrive, or the connection breaks before a body of unknown length ended; _TooSlow after
    `seconds`; _TooLarge when the body, or its Content-Length, is over the limit or differs from `size`."""
    req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    h, got = hashlib.sha256(), 0
    deadline = time.monotonic() + seconds
    try:
        resp = urllib.request.urlopen(req, timeout=max(min(timeout, seconds), 0.01))
    except urllib.error.HTTPError:
        raise
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as err:
        raise _NoConnection(str(err)) from err
    with resp:
        expected = _content_length(resp.headers.get("Content-Length"))
        if size is not None and expected is not None and expected != size:
            raise _TooLarge(f"the server declares {expected:,} bytes (Content-Length), the catalogue {size:,}: "
                            "not the file the catalogue describes")
        limit = max_download_bytes() if size is None else size
        if expected is not None and expected > limit:
            raise _TooLarge(f"the server declares {expected:,} bytes, over the {limit:,}-byte download limit "
                            f"(${ENV_MAX_DOWNLOAD}; raise it only for a source you trust)")
        expected = size if expected is None else expected  # the bytes that must arrive, when known
        while True:
            if time.monotonic() > deadline:
                raise _TooSlow(f"not complete within its {seconds:g} s deadline ({got} bytes received); the "
                               "server is too slow")
            try:
                block = resp.read1(1 << 16) if hasattr(resp, "read1") else resp.read(1 << 16)
            except http.client.IncompleteRead as err:
                raise _ShortRead(f"connection closed after {got + len(err.partial)} bytes") from None
            if not block:
                break
            got += len(block)
            if got > (limit if expected is None else expected):  # checked as it streams: no Content-Length, or
                raise _TooLarge(                                  # a server that sends more than it declared
                    f"more than {limit if expected is None else expected:,} bytes "
                    + (f"(the download limit, ${ENV_MAX_DOWNLOAD}; raise it only for a source you trust)"
                       if expected is None else "(the size the catalogue declares)" if size is not None
                       else "(more than its Content-Length)"))
            h.update(block)
            out.write(block)
    if expected is not None and got != expected:
        raise _ShortRead(f"got {got} of {expected} bytes" + (" (the size the catalogue declares)"
                                                            if size is not None else ""))
    return h.hexdigest()


def _content_length(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise _ShortRead(f"invalid Content-Length {value[:40]!r}") from None


# --------------------------------------------------------------------------------------------- extract
ENV_MAX_BYTES = "DIALECTBENCH_ARCHIVE_MAX_BYTES"
ENV_MAX_RATIO = "DIALECTBENCH_ARCHIVE_MAX_RATIO"
ENV_MAX_MEMBERS = "DIALECTBENCH_ARCHIVE_MAX_MEMBERS"
_RATIO_FLOOR = 1 << 20  # below 1 MiB expanded the ratio is not judged (a tiny tar.gz of padding is ~100:1)


@dataclass(frozen=True)
class ArchiveLimits:
    """What one archive may expand to, judged from its headers before anything is decompressed or written:
    the sum of its members' sizes (`max_bytes`), that sum over the archive's own size (`max_ratio`, a zip
    bomb's signature: text compresses ~10:1) and its number of members (`max_members`)."""

    max_bytes: int = 1 << 30
    max_ratio: float = 100.0
    max_members: int = 10_000

    @classmethod
    def from_env(cls) -> ArchiveLimits:
        """The defaults, each overridable by $DIALECTBENCH_ARCHIVE_MAX_BYTES, _MAX_RATIO, _MAX_MEMBERS."""
        d = cls()
        return cls(int(_env_number(ENV_MAX_BYTES, d.max_bytes, whole=True)), _env_number(ENV_MAX_RATIO, d.max_ratio),
                   int(_env_number(ENV_MAX_MEMBERS, d.max_members, whole=True)))


def _env_number(name: str, default: float, *, whole: bool = False) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise FetchError(f"{name}={raw!r} is not a{' whole' if whole else ''} number") from None
    if not value > 0:
        raise FetchError(f"{name}={raw!r} must be more than zero")
    return value


class ArchiveTooLarge(FetchError):
    """An archive would expand beyond ArchiveLimits (a decompression bomb, or one to trust explicitly)."""


def extract_member(archive: Path, member: str, dest: Path, limits: ArchiveLimits | None = None) -> Path:
    """Write the one file `member` of a zip or tar archive to `dest` (atomically: temp file + rename).

    Every member's header is checked first, and nothing is written unless all pass: any absolute path, `..`
    component, device or symbolic/hard link whose target leaves the archive raises UnsafeArchive; more
    members, bytes or expansion ratio than `limits` allow raises ArchiveTooLarge. Only `member` is
    decompressed to disk (a tar's earlier members are read past, within the limits just checked)."""
    limits = limits if limits is not None else ArchiveLimits.from_env()
    want = _check_member(archive, member)
    tmp = dest.with_name(f".{dest.name}.part")
    try:
        if zipfile.is_zipfile(archive):
            found = _zip_member(archive, want, tmp, limits)
        elif _is_tar(archive):
            found = _tar_member(archive, want, tmp, limits)
        else:
            raise BadArchive(f"{archive}: not a zip or tar archive")
        if not found:
            raise FetchError(f"{archive}: the archive has no member {member!r}")
        os.replace(tmp, dest)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile,
            NotImplementedError) as err:
        raise BadArchive(f"{archive}: a damaged archive ({type(err).__name__}: {err})") from None
    except _TarHeaderTooLarge as err:
        raise BadArchive(f"{archive}: {err}") from None
    except OSError as err:  # the disk, not the archive (full, permissions)
        raise FetchError(f"{archive}: cannot extract {member!r} to {dest.parent} ({err.strerror or err})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def _check_member(archive: Path, name: str) -> PurePosixPath:
    p = PurePosixPath(name.replace("\\", "/"))
    if p.is_absolute() or name.startswith(("/", "\\")) or (p.parts and ":" in p.parts[0]) or ".." in p.parts:
        raise UnsafeArchive(f"{archive}: refusing member {name!r} (absolute path or '..' would escape the "
                            "extraction folder)")
    return p


class _Tally:
    """Members and bytes seen so far, refused the moment either passes its limit."""

    def __init__(self, archive: Path, limits: ArchiveLimits) -> None:
        self.archive, self.limits, self.members, self.bytes = archive, limits, 0, 0
        self.size = archive.stat().st_size

    def add(self, size: int) -> None:
        self.members += 1
        self.bytes += size
        lim, how = self.limits, "raise it only for an archive you trust"
        if self.members > lim.max_members:
            raise ArchiveTooLarge(f"{self.archive}: more than {lim.max_members} members (the limit, "
                                  f"${ENV_MAX_MEMBERS}; {how})")
        if self.bytes > lim.max_bytes:
            raise ArchiveTooLarge(f"{self.archive}: expands to more than {lim.max_bytes} bytes (the limit, "
                                  f"${ENV_MAX_BYTES}; {how})")
        if self.bytes > max(_RATIO_FLOOR, lim.max_ratio * self.size):
            raise ArchiveTooLarge(f"{self.archive}: expands more than {lim.max_ratio:g} times its "
                                  f"{self.size} bytes (the limit, ${ENV_MAX_RATIO}; {how})")


def _zip_member(archive: Path, want: PurePosixPath, out: Path, limits: ArchiveLimits) -> bool:
    tally, found = _Tally(archive, limits), None
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():  # the central directory: sizes as declared, which bound what is read
            name = _check_member(archive, info.filename)
            if (info.external_attr >> 16) & 0o170000 == 0o120000:  # a symlink stored in the zip
                raise UnsafeArchive(f"{archive}: refusing symbolic link {info.filename!r}")
            tally.add(info.file_size)
            if name == want and not info.is_dir():
                found = info
        if found is None:
            return False
        with zf.open(found) as src:
            _write(src, out)
    return True


MAX_TAR_HEADER = 1 << 20  # bytes of a GNU long name/link or a PAX extended header (real ones: < 1 KiB);
# tarfile reads such a block whole into memory, before any member limit can look at it


class _BoundedTarInfo(tarfile.TarInfo):
    """A tar header whose GNU long-name/long-link and PAX blocks are refused over MAX_TAR_HEADER bytes
    before they are read (a 1 MB .tar.gz declaring a 1 GiB long name once cost 78 s and ~2 GB)."""

    def _bounded(self) -> None:
        if self.size > MAX_TAR_HEADER:
            what = "GNU long-name" if self.type in (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK) else "PAX"
            raise _TarHeaderTooLarge(f"a tar header block declares {self.size:,} bytes of {what} data (at most "
                                     f"{MAX_TAR_HEADER:,}): not a usable archive")

    def _proc_gnulong(self, tarfile):
        self._bounded()
        return super()._proc_gnulong(tarfile)

    def _proc_pax(self, tarfile):
        self._bounded()
        return super()._proc_pax(tarfile)


class _TarHeaderTooLarge(Exception):
    """Raised inside tarfile's header loop (a TarError there would be taken for the archive's end)."""


def _is_tar(archive: Path) -> bool:
    """tarfile.is_tarfile with bounded headers (is_tarfile itself reads the first header block whole)."""
    try:
        with tarfile.open(archive, tarinfo=_BoundedTarInfo):
            return True
    except tarfile.TarError:
        return False


def _tar_member(archive: Path, want: PurePosixPath, out: Path, limits: ArchiveLimits) -> bool:
    tally, links, found = _Tally(archive, limits), {}, None
    with tarfile.open(archive, tarinfo=_BoundedTarInfo) as tf:
        # one header at a time: a member's data is only read past (decompressed) when the next header is
        # asked for, after its declared size passed the tally
        for m in tf:
            rel = _check_member(archive, m.name)
            if m.issym() or m.islnk():
                links[rel] = m
            elif not (m.isfile() or m.isdir()):
                raise UnsafeArchive(f"{archive}: refusing special file {m.name!r}")
            tally.add(m.size if m.isfile() else 0)
            if rel == want and not m.isdir():
                found = m  # the last of equal names wins, as on extraction
        symlinks = {rel: m.linkname for rel, m in links.items() if m.issym()}
        for rel, m in links.items():
            start = rel.parent if m.issym() else PurePosixPath()
            if PurePosixPath(m.linkname).is_absolute() or _resolve(start / m.linkname, symlinks) is None:
                raise UnsafeArchive(f"{archive}: refusing link {m.name!r} -> {m.linkname!r} "
                                    "(it points outside the extraction folder)")
        if found is None:
            return False
        try:
            src = tf.extractfile(found)  # a link is followed to its target inside the archive, never on disk
        except KeyError:
            raise FetchError(f"{archive}: member {found.name!r} links to {found.linkname!r}, which the archive "
                             "does not have") from None
        if src is None:
            return False
        with src:
            _write(src, out)
    return True


def _write(src, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)  # only now: a refused archive leaves no folder behind
    with open(out, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def _resolve(path: PurePosixPath, symlinks: dict[PurePosixPath, str]) -> PurePosixPath | None:
    """Where `path` lands once the archive's own symbolic links are followed, as a file system would when
    they are extracted (so `b -> a/..` with `a -> .` escapes); None when it leaves the folder or loops."""
    parts, done, hops = list(path.parts), PurePosixPath(), 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            if not done.parts:
                return None
            done = done.parent
        elif part != ".":
            target = symlinks.get(done / part)
            if target is None:
                done = done / part
            elif PurePosixPath(target).is_absolute() or (hops := hops + 1) > 40:
                return None
            else:
                parts = list(PurePosixPath(target).parts) + parts
    return done


# --------------------------------------------------------------------------------------------- the cache
@dataclass
class FetchResult:
    path: str  # catalogue path
    status: str  # "cached" (already verified), "downloaded", "mirror"
    local: Path


class Cache:
    """The download cache; `fetch(ref)` makes `files/<ref.path>` exist and be verified."""

    def __init__(self, root: Path | None = None, *, limits: ArchiveLimits | None = None) -> None:
        self.root = root if root is not None else cache_root()
        self.limits = limits if limits is not None else ArchiveLimits.from_env()
        self.files = self.root / "files"
        self.manifest_path = self.root / "manifest.json"
        self.unreachable: set[str] = set()  # hosts that failed every attempt: not retried for each file

    def manifest(self) -> dict[str, dict]:
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def _record(self, ref: FileRef, local: Path, digest: str, source: str) -> None:
        m = self.manifest()
        m[ref.path] = {"sha256": digest, "size": local.stat().st_size, "source": source}
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.manifest_path.with_suffix(".json.part")
        tmp.write_text(json.dumps(m, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.manifest_path)

    def verified(self, ref: FileRef) -> Path | None:
        """The cached file when the manifest says it was verified and its size still matches."""
        local = self.files / ref.path
        rec = self.manifest().get(ref.path)
        if rec is None or not local.is_file() or local.stat().st_size != rec["size"]:
            return None
        if ref.member is None and ((ref.sha256 and rec["sha256"] != ref.sha256)
                                   or (ref.size is not None and rec["size"] != ref.size)):
            return None
        return local

    def fetch(self, ref: FileRef, *, dataset: str = "", allow_unverified: bool = False, hub: bool = False,
              retries: int = 3) -> FetchResult:
        found = self.verified(ref)
        if found is not None:
            return FetchResult(ref.path, "cached", found)
        if ref.url:
            return self._fetch_url(ref, dataset, allow_unverified, retries)
        if ref.hf:
            return self._fetch_hf(ref, dataset, hub)
        raise DataNotAvailable(f"{dataset}: {ref.path} has no download source", dataset=dataset)

    def _fetch_url(self, ref: FileRef, dataset: str, allow_unverified: bool, retries: int) -> FetchResult:
        assert ref.url is not None
        if ref.sha256 is None and not allow_unverified:
            raise FetchError(f"{dataset}: {ref.url} has no pinned sha256; rerun with --allow-unverified to "
                             f"trust it on first use, or download it by hand and save it as "
                             f"<data-dir>/{ref.path}")
        local = self.files / ref.path
        host = urllib.parse.urlsplit(ref.url).netloc
        try:
            if host in self.unreachable:
                raise Unreachable(f"{host} could not be reached earlier in this run")
            if ref.member is None:
                download(ref.url, local, sha256=ref.sha256, size=ref.size, retries=retries)
            else:
                self._from_archive(ref, local, retries)
        except FetchError as err:
            if isinstance(err, Unreachable):
                self.unreachable.add(host)
            raise type(err)(f"{dataset}: {err}; to supply it by hand, download {ref.url} and save "
                             + (f"{ref.member} from the archive " if ref.member else "it ")
                             + f"as <data-dir>/{ref.path}") from None
        self._record(ref, local, sha256_of(local), ref.url)
        return FetchResult(ref.path, "downloaded", local)

    def _from_archive(self, ref: FileRef, local: Path, retries: int) -> None:
        assert ref.url is not None and ref.member is not None
        key = hashlib.sha256(ref.url.encode()).hexdigest()[:16]
        archive = self.root / "downloads" / key / PurePosixPath(ref.url.split("?")[0]).name
        if (not archive.is_file() or (ref.size is not None and archive.stat().st_size != ref.size)
                or (ref.sha256 and sha256_of(archive) != ref.sha256)):
            download(ref.url, archive, sha256=ref.sha256, size=ref.size, retries=retries)
        try:
            extract_member(archive, ref.member, local, self.limits)
        except (UnsafeArchive, BadArchive):  # refused: keep nothing of it (a damaged one is fetched again);
            archive.unlink(missing_ok=True)  # one only too large is kept, not fetched again once trusted
            raise

    def _fetch_hf(self, ref: FileRef, dataset: str, hub: bool) -> FetchResult:
        hf = ref.hf
        assert hf is not None
        where = f"{hf.repo}@{hf.revision} ({hf.file or f'config {hf.config}, split {hf.split}'})"
        if not hub:
            raise DataNotAvailable(f"{dataset}: {ref.path} comes from the Hugging Face hub, {where}",
                                   dataset=dataset, how_to_obtain="rerun with --hub where the hub is reachable, "
                                   f"or export it by hand to <data-dir>/{ref.path}")
        by_hand = f"export it by hand to <data-dir>/{ref.path}"
        absent = missing("huggingface_hub" if hf.file else "datasets")  # a file, or a (config, split) export
        if absent:  # "… needs the fetch extra: pip install 'dialectbench[fetch]'"
            raise DataNotAvailable(install_hint(f"{dataset}: fetching {where}", absent), dataset=dataset,
                                   how_to_obtain=f"or {by_hand}")
        local = self.files / ref.path
        try:
            if hf.file:
                _hf_file(hf.repo, hf.revision, hf.file, local)
            else:
                _hf_export(hf.repo, hf.revision, hf.config, hf.split, local)
        except ImportError as err:  # installed, but a library under it is missing or broken
            raise DataNotAvailable(f"{dataset}: {where} needs {err.name or 'a missing library'}",
                                   dataset=dataset, how_to_obtain=f"pip install 'dialectbench[fetch]', or "
                                   f"{by_hand}") from None
        except Exception as err:  # noqa: BLE001 (the hub client raises many types; all mean "not fetched")
            raise FetchError(f"{dataset}: could not fetch {where} from the Hugging Face hub "
                             f"({type(err).__name__}: {err}); export it by hand to <data-dir>/{ref.path}") from None
        self._record(ref, local, sha256_of(local), f"hf:{where}")
        return FetchResult(ref.path, "downloaded", local)


def _hf_file(repo: str, revision: str, filename: str, local: Path) -> None:
    from huggingface_hub import hf_hub_download

    got = Path(hf_hub_download(repo, filename, repo_type="dataset", revision=revision))
    local.parent.mkdir(parents=True, exist_ok=True)
    tmp = local.with_name(f".{local.name}.part")
    shutil.copyfile(got, tmp)
    os.replace(tmp, local)


def _hf_export(repo: str, revision: str, config: str | None, split: str | None, local: Path) -> None:
    """Export a (config, split) with `datasets` to the reader format of the path (.bio IOB or .tsv pairs)."""
    import datasets

    ds = datasets.load_dataset(repo, config, split=split, revision=revision)
    local.parent.mkdir(parents=True, exist_ok=True)
    tmp = local.with_name(f".{local.name}.part")
    with open(tmp, "w", encoding="utf-8") as out:
        if local.suffix == ".bio":
            names = ds.features["ner_tags"].feature.names
            for row in ds:
                out.writelines(f"{tok}\t{names[tag]}\n" for tok, tag in zip(row["tokens"], row["ner_tags"]))
                out.write("\n")
        else:
            names = ds.features["label"].names
            out.write("premise\thypothesis\tlabel\n")
            for row in ds:
                out.write(f"{_one_line(row['premise'])}\t{_one_line(row['hypothesis'])}\t{names[row['label']]}\n")
    os.replace(tmp, local)


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ----------------------------------------------------------------------------------- entry-level fetch
@dataclass
class EntryReport:
    task: str
    variety: str
    status: str  # "mirror", "cached", "downloaded", "missing"
    detail: str


def fetch_entry(task: str, entry: Entry, dataset_name: str, cache: Cache, *, mirror: Path | None = None,
                allow_unverified: bool = False, hub: bool = False, download_missing: bool = True,
                obtain: str | None = None) -> EntryReport:
    """Make every file of one catalogue entry available (mirror first, then cache, then download)."""
    refs = {r.path: r for parts in entry.splits.values() for p in parts for r in p.file_args().values()}
    statuses, problems = [], []
    for ref in refs.values():
        if mirror is not None and (mirror / ref.path).is_file():
            statuses.append("mirror")
            continue
        if cache.verified(ref) is not None:
            statuses.append("cached")
            continue
        if not download_missing or not ref.remote:
            statuses.append("missing")
            problems.append(ref.path)
            continue
        try:
            statuses.append(cache.fetch(ref, dataset=dataset_name, allow_unverified=allow_unverified,
                                        hub=hub).status)
        except (FetchError, DataNotAvailable) as err:
            statuses.append("missing")
            problems.append(str(err))
    return _report(task, entry, dataset_name, statuses, problems, obtain, mirror)


def _report(task: str, entry: Entry, dataset_name: str, statuses: list[str], problems: list[str],
            obtain: str | None, mirror: Path | None) -> EntryReport:
    if not problems:
        worst = "downloaded" if "downloaded" in statuses else ("cached" if "cached" in statuses else "mirror")
        return EntryReport(task, entry.variety, worst, f"{dataset_name}: {len(statuses)} file(s)")
    where = str(mirror) if mirror is not None else "the cache"
    detail = f"{dataset_name}: {len(problems)} of {len(statuses)} file(s) not in {where}: " + "; ".join(
        problems[:3]) + (" ..." if len(problems) > 3 else "")
    if obtain:
        detail += f" -- {obtain}"
    elif mirror is not None:
        detail += f" -- run `dialectbench data fetch --task {task}` (no --data-dir) to download into the cache"
    return EntryReport(task, entry.variety, "missing" if len(problems) == len(statuses) else "partial", detail)


def fetch_task(task: str, *, variety: str | None = None, data_dir: Path | None = None, cache: Cache | None = None,
               hub: bool = False, allow_unverified: bool = False) -> list[EntryReport]:
    """Resolve (data_dir given: from the mirror, nothing downloaded) or download into the cache every entry
    of a task (or one variety of it)."""
    from dialectbench.data.catalogue import canonical_variety, load_catalogue

    cat = load_catalogue(task)
    entries = cat.entries
    if variety is not None:
        wanted = {variety, canonical_variety(variety)}
        entries = [e for e in entries if e.variety in wanted]
        if not entries:
            raise DataNotAvailable(f"{task}: the catalogue has no variety {variety!r}")
    cache = cache if cache is not None else Cache()
    reports = []
    for e in entries:
        ds = cat.datasets[e.dataset]
        reports.append(fetch_entry(task, e, ds.name, cache, mirror=data_dir, allow_unverified=allow_unverified,
                                   hub=hub, download_missing=data_dir is None, obtain=ds.obtain))
    return reports
