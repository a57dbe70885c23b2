"""Downloads under misbehaving servers: a per-file deadline, no `.part` left behind, only connection
failures mark a host down, archive refusals are FetchErrors naming the member (the archive removed), a
body shorter than announced, or cut before its end, is never kept, and an archive is bounded in what it
may expand to (bytes, ratio, members) with only the wanted member extracted."""

from __future__ import annotations

import hashlib
import io
import os
import random
import socket
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from http_fakes import LocalServer
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data.catalogue import FileRef
from dialectbench.data.fetch import (
    ArchiveLimits,
    ArchiveTooLarge,
    BadArchive,
    Cache,
    FetchError,
    Unreachable,
    UnsafeArchive,
    download,
    extract_member,
)

BODY = b"tok\tO\n" * 500


class _Server(LocalServer):
    """routes: path -> (status, body, mode); mode "slow" trickles the body, "short" announces more bytes
    than it sends, "unknown" sends no Content-Length and closes."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes, str]] = {}
        super().__init__(_respond)


def _respond(handler, server: _Server) -> None:
    status, body, mode = server.routes.get(handler.path, (404, b"", ""))
    handler.send_response(status)
    if mode != "unknown":
        handler.send_header("Content-Length", str(len(body) + (100 if mode == "short" else 0)))
    handler.end_headers()
    if mode == "slow":
        for i in range(len(body)):
            try:
                handler.wfile.write(body[i:i + 1])
                handler.wfile.flush()
            except OSError:
                return
            time.sleep(0.02)
        return
    handler.wfile.write(body)
    handler.close_connection = True


@pytest.fixture
def server():
    s = _Server()
    yield s
    s.close()


def _parts(folder: Path) -> list[Path]:
    return list(folder.rglob("*.part")) if folder.exists() else []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_trickling_server_hits_the_per_file_deadline(server, tmp_path):
    server.routes["/slow"] = (200, BODY, "slow")  # 1 byte per 20 ms: every read is quick, the file is not
    with pytest.raises(FetchError, match="deadline") as err:
        download(f"{server.url}/slow", tmp_path / "f", timeout=2, deadline=0.5, backoff=0)
    # the 0.5 s deadline stopped it part-way (the body takes a minute), not the 2 s socket timeout: no clock
    got = int(str(err.value).split("(")[1].split(" bytes")[0])
    assert "0.5 s deadline" in str(err.value) and 0 < got < len(BODY)
    assert not isinstance(err.value, Unreachable)
    assert not (tmp_path / "f").exists() and _parts(tmp_path) == []


def test_part_files_of_killed_downloads_are_removed_but_live_ones_kept(server, tmp_path):
    server.routes["/f"] = (200, BODY, "")
    old, fresh = tmp_path / ".f.abc123.part", tmp_path / ".f.def456.part"
    old.write_bytes(b"half")
    fresh.write_bytes(b"in progress")
    past = time.time() - 7200
    os.utime(old, (past, past))
    download(f"{server.url}/f", tmp_path / "f", sha256=hashlib.sha256(BODY).hexdigest(), deadline=3600)
    assert (tmp_path / "f").read_bytes() == BODY
    assert not old.exists() and fresh.exists()


def test_server_errors_do_not_mark_the_host_down(server, tmp_path):
    server.routes["/broken"] = (503, b"busy", "")
    server.routes["/good"] = (200, BODY, "")
    cache = Cache(tmp_path / "cache")
    with pytest.raises(FetchError) as err:
        cache.fetch(FileRef(path="x/broken", url=f"{server.url}/broken", sha256="0" * 64), dataset="X",
                    retries=2)
    assert not isinstance(err.value, Unreachable) and "503" in str(err.value)
    good = FileRef(path="x/good", url=f"{server.url}/good", sha256=hashlib.sha256(BODY).hexdigest())
    assert cache.fetch(good, dataset="X").status == "downloaded"  # the same host is still asked


def test_a_refused_connection_marks_the_host_down(tmp_path):
    port = _free_port()
    cache = Cache(tmp_path / "cache")
    with pytest.raises(Unreachable, match="could not connect"):
        cache.fetch(FileRef(path="x/a", url=f"http://127.0.0.1:{port}/a", sha256="0" * 64), dataset="X", retries=1)
    with pytest.raises(Unreachable, match="earlier in this run"):
        cache.fetch(FileRef(path="x/b", url=f"http://127.0.0.1:{port}/b", sha256="0" * 64), dataset="X", retries=1)


@pytest.mark.parametrize("mode", ["short", "unknown"])
def test_a_body_shorter_than_announced_or_cut_is_never_kept(server, tmp_path, mode):
    server.routes["/f"] = (200, BODY, mode)
    if mode == "short":
        with pytest.raises(FetchError):
            download(f"{server.url}/f", tmp_path / "f", retries=2, backoff=0)
        assert not (tmp_path / "f").exists() and _parts(tmp_path) == []
    else:  # no Content-Length, clean end of the connection: kept (only with --allow-unverified in the CLI)
        cache = Cache(tmp_path / "cache")
        got = cache.fetch(FileRef(path="x/f", url=f"{server.url}/f"), dataset="X", allow_unverified=True)
        assert got.local.read_bytes() == BODY


def _tar(members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for m in members:
            payload = (data or {}).get(m.name)
            if payload is not None:
                m.size = len(payload)
                tf.addfile(m, io.BytesIO(payload))
            else:
                tf.addfile(m)
    return buf.getvalue()


def _link(name: str, target: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, target
    return info


def test_a_symlink_chain_refused_by_the_tar_filter_is_an_unsafe_archive_and_removed(server, tmp_path):
    # "a" -> "." is inside; "b" -> "a/.." looks inside lexically but lands in the folder's parent
    body = _tar([_link("a", "."), _link("b", "a/.."), tarfile.TarInfo("data.txt")], {"data.txt": b"x\n"})
    server.routes["/chain.tar"] = (200, body, "")
    ref = FileRef(path="x/data.txt", url=f"{server.url}/chain.tar", sha256=None, member="data.txt")
    cache = Cache(tmp_path / "cache")
    with pytest.raises(UnsafeArchive) as err:
        cache.fetch(ref, dataset="X", allow_unverified=True)
    assert "'b'" in str(err.value)
    assert not list((tmp_path / "cache" / "downloads").rglob("chain.tar"))
    assert not (tmp_path / "cache" / "files").exists()


@pytest.mark.parametrize("damage", ["truncated-tar", "bad-zip"])
def test_a_damaged_archive_is_a_fetch_error_and_removed(server, tmp_path, damage):
    if damage == "truncated-tar":
        body = _tar([tarfile.TarInfo("data.txt")], {"data.txt": b"x" * 5000})[:1500]
    else:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("data.txt", "x" * 5000)
        raw = bytearray(buf.getvalue())
        raw[40:60] = b"\xff" * 20  # inside the member's data: a CRC error on extraction
        body = bytes(raw)
    server.routes["/a.bin"] = (200, body, "")
    ref = FileRef(path="x/data.txt", url=f"{server.url}/a.bin", sha256=None, member="data.txt")
    with pytest.raises(FetchError) as err:
        Cache(tmp_path / "cache").fetch(ref, dataset="X", allow_unverified=True)
    assert isinstance(err.value, (BadArchive, FetchError)) and "Traceback" not in str(err.value)
    assert not list((tmp_path / "cache" / "downloads").rglob("a.bin"))


# ------------------------------------------------------------------------------- bounded archive expansion
def _zip_of(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, payload in entries.items():
            zf.writestr(name, payload)
    return buf.getvalue()


def _targz(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, payload in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tf.addfile(info, io.BytesIO(payload))
    return buf.getvalue()


def _written(root: Path) -> list[Path]:
    """Every file under the cache but the downloaded archives: what an extraction wrote."""
    return [p for p in root.rglob("*") if p.is_file() and "downloads" not in p.parts] if root.exists() else []


BOMB = b"\0" * (8 << 20)  # 8 MiB of zeros: a few KiB deflated


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_archive_expanding_past_the_byte_limit_is_refused_before_anything_is_written(server, tmp_path, kind):
    body = (_zip_of if kind == "zip" else _targz)({"bomb.bin": BOMB, "data.txt": b"x\n"})
    assert len(body) < 100_000
    server.routes[f"/a.{kind}"] = (200, body, "")
    ref = FileRef(path="x/data.txt", url=f"{server.url}/a.{kind}", sha256=hashlib.sha256(body).hexdigest(),
                  member="data.txt")
    cache = Cache(tmp_path / "cache", limits=ArchiveLimits(max_bytes=4 << 20, max_ratio=1e9))
    with pytest.raises(ArchiveTooLarge) as err:
        cache.fetch(ref, dataset="X")
    msg = str(err.value)
    assert msg.startswith("X: ") and "more than 4194304 bytes" in msg and "DIALECTBENCH_ARCHIVE_MAX_BYTES" in msg
    assert "\n" not in msg
    assert _written(tmp_path / "cache") == []
    # the archive is kept (verified, only too large): trusted with a higher limit, it is not downloaded again
    server.routes.clear()
    got = Cache(tmp_path / "cache", limits=ArchiveLimits(max_bytes=16 << 20, max_ratio=1e9)).fetch(ref, dataset="X")
    assert got.local.read_bytes() == b"x\n"
    assert sorted(_written(tmp_path / "cache")) == sorted([got.local, tmp_path / "cache" / "manifest.json"])


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_archive_expanding_past_the_ratio_limit_is_refused(tmp_path, kind):
    archive = tmp_path / f"a.{kind}"
    archive.write_bytes((_zip_of if kind == "zip" else _targz)({"bomb.bin": BOMB}))
    with pytest.raises(ArchiveTooLarge, match=r"expands more than 50 times its \d+ bytes.*_MAX_RATIO"):
        extract_member(archive, "bomb.bin", tmp_path / "out", ArchiveLimits(max_ratio=50))
    assert not (tmp_path / "out").exists() and list(tmp_path.glob(".out*")) == []
    # a small archive of repetitive text is not judged by its ratio (under 1 MiB expanded)
    small = tmp_path / f"small.{kind}"
    small.write_bytes((_zip_of if kind == "zip" else _targz)({"t.txt": b"tok\tO\n" * 10_000}))
    extract_member(small, "t.txt", tmp_path / "t.txt", ArchiveLimits(max_ratio=2))
    assert (tmp_path / "t.txt").read_bytes() == b"tok\tO\n" * 10_000


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_archive_with_too_many_members_is_refused(tmp_path, kind):
    archive = tmp_path / f"a.{kind}"
    archive.write_bytes((_zip_of if kind == "zip" else _targz)({f"m{i}.txt": b"x" for i in range(300)}))
    with pytest.raises(ArchiveTooLarge, match="more than 100 members.*DIALECTBENCH_ARCHIVE_MAX_MEMBERS"):
        extract_member(archive, "m0.txt", tmp_path / "out", ArchiveLimits(max_members=100))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_only_the_member_an_entry_needs_is_extracted(server, tmp_path, kind):
    entries = {f"other/{i}.txt": random.Random(i).randbytes(50_000) for i in range(40)} | {"want/data.txt": BODY}
    body = (_zip_of if kind == "zip" else _targz)(entries)
    server.routes[f"/a.{kind}"] = (200, body, "")
    ref = FileRef(path="x/data.txt", url=f"{server.url}/a.{kind}", sha256=hashlib.sha256(body).hexdigest(),
                  member="want/data.txt")
    got = Cache(tmp_path / "cache").fetch(ref, dataset="X")
    assert got.local.read_bytes() == BODY
    assert sorted(_written(tmp_path / "cache")) == sorted([got.local, tmp_path / "cache" / "manifest.json"])


def test_a_wanted_tar_member_that_is_a_link_inside_the_archive_gives_its_target(tmp_path):
    archive = tmp_path / "a.tar"
    archive.write_bytes(_tar([tarfile.TarInfo("d/data.txt"), _link("d/latest.txt", "data.txt")],
                             {"d/data.txt": BODY}))
    assert extract_member(archive, "d/latest.txt", tmp_path / "out").read_bytes() == BODY
    assert not (tmp_path / "out").is_symlink()


def test_an_archive_without_the_member_says_so(tmp_path):
    archive = tmp_path / "a.zip"
    archive.write_bytes(_zip_of({"a.txt": b"x"}))
    with pytest.raises(FetchError, match="has no member 'b.txt'"):
        extract_member(archive, "b.txt", tmp_path / "out")


def test_the_limits_come_from_the_environment_and_a_bad_value_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.setenv("DIALECTBENCH_ARCHIVE_MAX_MEMBERS", "2")
    monkeypatch.setenv("DIALECTBENCH_ARCHIVE_MAX_RATIO", "7.5")
    assert Cache(tmp_path).limits == ArchiveLimits(max_members=2, max_ratio=7.5)
    monkeypatch.setenv("DIALECTBENCH_ARCHIVE_MAX_BYTES", "lots")
    with pytest.raises(FetchError, match="DIALECTBENCH_ARCHIVE_MAX_BYTES='lots' is not a whole number"):
        Cache(tmp_path)
    monkeypatch.setenv("DIALECTBENCH_CACHE", str(tmp_path / "cache"))
    result = CliRunner().invoke(app, ["data", "fetch", "--task", "ner"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.strip() == "error: DIALECTBENCH_ARCHIVE_MAX_BYTES='lots' is not a whole number"
