"""Fetching against a local HTTP server on 127.0.0.1: verified downloads, retries, safe extraction."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

import pytest
from http_fakes import LocalServer

from dialectbench.data import DataNotAvailable
from dialectbench.data import fetch as fetch_module
from dialectbench.data.catalogue import FileRef
from dialectbench.data.fetch import (
    Cache,
    ChecksumMismatch,
    FetchError,
    UnsafeArchive,
    download,
    extract_member,
)

BODY = ("tok\tO\n" * 2000).encode()


class _Server(LocalServer):
    """Serves `routes` (path -> bytes); paths in `drop_once` send half the body then close, the first time."""

    def __init__(self) -> None:
        self.routes: dict[str, bytes] = {}
        self.drop_once: set[str] = set()
        super().__init__(_respond)


def _respond(handler, server: _Server) -> None:
    body = server.routes.get(handler.path)
    if body is None:
        handler.send_error(404)
        return
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if handler.path in server.drop_once:
        server.drop_once.discard(handler.path)
        handler.wfile.write(body[: len(body) // 2])
        handler.wfile.flush()
        handler.close_connection = True
        return
    handler.wfile.write(body)


@pytest.fixture
def server():
    s = _Server()
    yield s
    s.close()


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_good_download_is_verified_cached_and_not_repeated(server, tmp_path):
    server.routes["/ner.bio"] = BODY
    ref = FileRef(path="x/ner.bio", url=f"{server.url}/ner.bio", sha256=hashlib.sha256(BODY).hexdigest())
    cache = Cache(tmp_path / "cache")
    first = cache.fetch(ref, dataset="X")
    assert first.status == "downloaded" and first.local.read_bytes() == BODY
    assert cache.manifest()["x/ner.bio"]["sha256"] == ref.sha256
    second = cache.fetch(ref, dataset="X")
    assert second.status == "cached" and server.hits["/ner.bio"] == 1


def test_checksum_mismatch_is_rejected_and_nothing_is_kept(server, tmp_path):
    server.routes["/ner.bio"] = BODY
    ref = FileRef(path="x/ner.bio", url=f"{server.url}/ner.bio", sha256="0" * 64)
    cache = Cache(tmp_path / "cache")
    with pytest.raises(FetchError, match="sha256") as err:
        cache.fetch(ref, dataset="Some Dataset")
    assert "Some Dataset" in str(err.value) and "by hand" in str(err.value)
    assert _files_under(tmp_path / "cache") == []
    assert cache.verified(ref) is None


def test_checksum_mismatch_raises_the_specific_error(server, tmp_path):
    server.routes["/f"] = BODY
    with pytest.raises(ChecksumMismatch):
        download(f"{server.url}/f", tmp_path / "f", sha256="1" * 64)
    assert not (tmp_path / "f").exists() and list(tmp_path.iterdir()) == []


def test_interrupted_download_is_retried_and_no_partial_file_is_used(server, tmp_path):
    server.routes["/ner.bio"] = BODY
    server.drop_once.add("/ner.bio")
    ref = FileRef(path="x/ner.bio", url=f"{server.url}/ner.bio", sha256=hashlib.sha256(BODY).hexdigest())
    result = Cache(tmp_path / "cache").fetch(ref, dataset="X")
    assert server.hits["/ner.bio"] == 2
    assert result.local.read_bytes() == BODY
    assert [p.name for p in _files_under(tmp_path / "cache" / "files")] == ["ner.bio"]


def test_repeatedly_interrupted_download_fails_without_leaving_a_file(server, tmp_path):
    server.routes["/f"] = BODY

    class Always(set):
        def discard(self, item):  # never forget the path: every response is cut short
            pass

    server.drop_once = Always({"/f"})
    with pytest.raises(FetchError, match="3 attempts"):
        download(f"{server.url}/f", tmp_path / "f", retries=3, backoff=0)
    assert list(tmp_path.iterdir()) == []


def test_http_404_is_a_clear_error(server, tmp_path):
    ref = FileRef(path="x/a.txt", url=f"{server.url}/nope", sha256="2" * 64)
    with pytest.raises(FetchError, match="404"):
        Cache(tmp_path / "cache").fetch(ref, dataset="X")


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_zip_with_parent_traversal_is_refused(server, tmp_path):
    evil = _zip({"ok.txt": b"fine", "../evil": b"gotcha"})
    server.routes["/a.zip"] = evil
    ref = FileRef(path="x/ok.txt", url=f"{server.url}/a.zip", sha256=hashlib.sha256(evil).hexdigest(),
                  member="ok.txt")
    with pytest.raises(FetchError, match="refusing member '../evil'"):
        Cache(tmp_path / "cache").fetch(ref, dataset="X")
    assert not (tmp_path / "evil").exists() and not (tmp_path / "cache" / "evil").exists()
    assert _files_under(tmp_path / "cache") == []


def test_absolute_member_is_refused(tmp_path):
    archive = tmp_path / "abs.zip"
    archive.write_bytes(_zip({"/etc/evil": b"x"}))
    with pytest.raises(UnsafeArchive):
        extract_member(archive, "data/x", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_tar_link_escaping_the_folder_is_refused(tmp_path):
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w") as tf:
        info = tarfile.TarInfo("data/link")
        info.type, info.linkname = tarfile.SYMTYPE, "../../outside"
        tf.addfile(info)
    with pytest.raises(UnsafeArchive, match="points outside"):
        extract_member(archive, "data/x", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_good_archive_member_lands_at_its_catalogue_path(server, tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("wikiann-xx.bio")
        info.size = len(BODY)
        tf.addfile(info, io.BytesIO(BODY))
    server.routes["/xx.tar.gz"] = buf.getvalue()
    ref = FileRef(path="wikiann-og/wikiann-xx.bio", url=f"{server.url}/xx.tar.gz",
                  sha256=hashlib.sha256(buf.getvalue()).hexdigest(), member="wikiann-xx.bio")
    result = Cache(tmp_path / "cache").fetch(ref, dataset="X")
    assert result.local == tmp_path / "cache" / "files" / "wikiann-og" / "wikiann-xx.bio"
    assert result.local.read_bytes() == BODY


def test_unpinned_url_needs_explicit_permission(server, tmp_path):
    server.routes["/f"] = BODY
    ref = FileRef(path="x/f", url=f"{server.url}/f")
    cache = Cache(tmp_path / "cache")
    with pytest.raises(FetchError, match="--allow-unverified"):
        cache.fetch(ref, dataset="X")
    assert server.hits == {}
    assert cache.fetch(ref, dataset="X", allow_unverified=True).local.read_bytes() == BODY


def test_hub_source_without_hub_says_how_to_get_it(tmp_path):
    ref = FileRef(path="belebele/eng_Latn.jsonl",
                  hf={"repo": "facebook/belebele", "revision": "a" * 40, "file": "data/eng_Latn.jsonl"})
    with pytest.raises(DataNotAvailable) as err:
        Cache(tmp_path / "cache").fetch(ref, dataset="Belebele")
    assert "facebook/belebele" in str(err.value) and "--hub" in str(err.value)


@pytest.mark.parametrize(("hf", "needs"), [({"file": "data/eng_Latn.jsonl"}, "huggingface_hub"),
                                           ({"config": "eng_Latn", "split": "test"}, "datasets")])
def test_hub_source_without_the_fetch_extra_names_its_install_line(tmp_path, monkeypatch, hf, needs):
    asked = []
    monkeypatch.setattr(fetch_module, "missing", lambda *modules: asked.extend(modules) or list(modules))
    ref = FileRef(path="belebele/eng_Latn.tsv", hf={"repo": "facebook/belebele", "revision": "a" * 40, **hf})
    with pytest.raises(DataNotAvailable) as err:
        Cache(tmp_path / "cache").fetch(ref, dataset="Belebele", hub=True)
    assert asked == [needs]
    assert "Belebele: fetching facebook/belebele@" in str(err.value)
    assert "needs the fetch extra: pip install 'dialectbench[fetch]'" in str(err.value)
    assert "<data-dir>/belebele/eng_Latn.tsv" in str(err.value)  # or by hand
    assert not (tmp_path / "cache" / "files" / "belebele").exists()


def test_unreachable_server_names_the_dataset_and_the_manual_route(tmp_path):
    ref = FileRef(path="x/f", url="http://127.0.0.1:9/f", sha256="3" * 64)  # port 9: nothing listens
    with pytest.raises(FetchError) as err:
        Cache(tmp_path / "cache").fetch(ref, dataset="Tiny Set", retries=1)
    assert "Tiny Set" in str(err.value) and "<data-dir>/x/f" in str(err.value)


def test_an_unreachable_host_is_not_retried_for_every_file(tmp_path):
    cache = Cache(tmp_path / "cache")
    refs = [FileRef(path=f"x/{i}", url=f"http://127.0.0.1:9/{i}", sha256="4" * 64) for i in range(3)]
    with pytest.raises(FetchError, match="attempts"):
        cache.fetch(refs[0], dataset="X", retries=1)
    for ref in refs[1:]:
        with pytest.raises(FetchError, match="earlier in this run"):
            cache.fetch(ref, dataset="X", retries=1)
