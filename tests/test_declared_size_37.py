"""Issue 37 leftovers: a download is bounded by the size its catalogue declares, and packaged catalogues refuse
a key given twice as user catalogues do. Hostile servers and files are built here (a local server, tmp_path)."""

from __future__ import annotations

import hashlib
import json

import pytest
from http_fakes import LocalServer
from pydantic import ValidationError

from dialectbench.data import fetch as fetch_module
from dialectbench.data import user_catalogue
from dialectbench.data.catalogue import CatalogueError, FileRef, catalogue_files, load_catalogue_file
from dialectbench.data.fetch import Cache, FetchError, download

BODY = b"0123456789" * 1000  # 10,000 bytes: the file the catalogue describes


def _serve(handler, server) -> None:
    """Sends `server.body`, with `server.declare` as Content-Length (None: no header, the body ends with the
    connection)."""
    handler.send_response(200)
    if server.declare is not None:
        handler.send_header("Content-Length", str(server.declare))
    handler.end_headers()
    try:
        handler.wfile.write(server.body)
    except (BrokenPipeError, ConnectionResetError):
        pass
    handler.close_connection = True


@pytest.fixture
def server():
    s = LocalServer(_serve)
    s.body, s.declare = BODY, None
    yield s
    s.close()


def _nothing_kept(folder) -> None:
    assert [p.name for p in folder.rglob("*") if p.is_file()] == []


def test_a_body_longer_than_the_declared_size_is_cut_off_and_nothing_is_kept(server, tmp_path):
    server.body = BODY + b"x" * 200_000  # no Content-Length: only the declared size can stop it
    with pytest.raises(FetchError) as err:
        download(f"{server.url}/f", tmp_path / "d" / "f.txt", size=len(BODY), retries=3, backoff=0)
    message = str(err.value)
    assert "more than 10,000 bytes (the size the catalogue declares)" in message and "\n" not in message
    assert server.hits["/f"] == 1  # not retried: the server would send as much again
    _nothing_kept(tmp_path)


def test_a_content_length_that_disagrees_with_the_declared_size_is_refused_before_the_body(server, tmp_path):
    server.declare = len(BODY) + 1
    server.body = BODY + b"x"
    with pytest.raises(FetchError) as err:
        download(f"{server.url}/f", tmp_path / "d" / "f.txt", size=len(BODY), retries=3, backoff=0)
    message = str(err.value)
    assert "declares 10,001 bytes (Content-Length), the catalogue 10,000" in message and "\n" not in message
    assert server.hits["/f"] == 1
    _nothing_kept(tmp_path)


def test_a_smaller_content_length_is_refused_too(server, tmp_path):
    server.declare = 10
    server.body = BODY[:10]
    with pytest.raises(FetchError, match="declares 10 bytes"):
        download(f"{server.url}/f", tmp_path / "d" / "f.txt", size=len(BODY), retries=1)
    _nothing_kept(tmp_path)


def test_fewer_bytes_than_declared_are_a_short_read_retried_and_nothing_kept(server, tmp_path):
    server.body = BODY[:-1]
    with pytest.raises(FetchError) as err:
        download(f"{server.url}/f", tmp_path / "d" / "f.txt", size=len(BODY), retries=2, backoff=0)
    assert "got 9999 of 10000 bytes (the size the catalogue declares)" in str(err.value)
    assert server.hits["/f"] == 2  # a short read may be a dropped connection: tried again
    _nothing_kept(tmp_path)


@pytest.mark.parametrize("declare", [None, len(BODY)])
def test_the_declared_size_replaces_the_global_limit(server, tmp_path, monkeypatch, declare):
    """A catalogue that pins a file's size vouches for it: a file over $DIALECTBENCH_DOWNLOAD_MAX_BYTES
    downloads when its declared size says so (and the limit still holds for a file without one)."""
    monkeypatch.setenv(fetch_module.ENV_MAX_DOWNLOAD, "1000")
    server.declare = declare
    dest = tmp_path / "f.txt"
    assert download(f"{server.url}/f", dest, size=len(BODY)).read_bytes() == BODY
    with pytest.raises(FetchError, match="1,000"):
        download(f"{server.url}/f", tmp_path / "g.txt", retries=1)


def test_the_cache_passes_the_declared_size_and_refetches_a_file_of_another_size(server, tmp_path):
    digest = hashlib.sha256(BODY).hexdigest()
    cache = Cache(tmp_path / "cache")
    ref = FileRef(path="x/f.txt", url=f"{server.url}/f", sha256=digest, size=len(BODY))
    assert cache.fetch(ref).status == "downloaded"
    assert cache.fetch(ref).status == "cached"
    wrong = FileRef(path="x/f.txt", url=f"{server.url}/f", sha256=digest, size=len(BODY) - 1)
    with pytest.raises(FetchError, match="the size the catalogue declares"):  # not the cached file of 10,000
        cache.fetch(wrong)
    # a server grown past the declared size (no Content-Length) is cut off, and the cache keeps its old file
    server.body = BODY * 20
    unpinned = FileRef(path="y/f.txt", url=f"{server.url}/g", size=len(BODY))
    with pytest.raises(FetchError, match="more than 10,000 bytes"):
        cache.fetch(unpinned, allow_unverified=True)
    assert not (cache.files / "y" / "f.txt").exists()
    assert json.loads(cache.manifest_path.read_text())["x/f.txt"]["size"] == len(BODY)


@pytest.mark.parametrize("value, problem", [(-1, "greater than or equal to 0"), ("10", "valid integer"),
                                            (True, "valid integer"), (1.5, "valid integer")])
def test_a_size_that_is_not_a_byte_count_is_refused(value, problem):
    with pytest.raises(ValidationError, match=problem):
        FileRef(path="a.txt", url="https://example.org/a.txt", size=value)


def test_a_size_without_a_url_is_refused():
    with pytest.raises(ValidationError, match="size belongs to a url download"):
        FileRef(path="a.txt", size=3)


def test_a_user_catalogue_may_declare_a_size_and_a_wrong_one_names_its_line(tmp_path, forget_user_catalogues):
    data = tmp_path / "d.tsv"
    data.write_text("text\tlabel\nhello\ta\n", encoding="utf-8")
    head = ("task: tc\ndescription: t\ndatasets:\n  d: {name: d, licence: CC0-1.0, citation: me}\n"
            "varieties:\n  - {name: testish, cluster: anglic}\nentries:\n- variety: testish\n  dataset: d\n"
            "  format: labelled\n  splits:\n    test:\n    - file:\n        path: d.tsv\n"
            "        url: https://example.org/d.tsv\n")
    options = "      options: {text_column: text, label_column: label, header: true}\n"
    good = tmp_path / "good.yaml"
    good.write_text(head + "        size: 18\n" + options, encoding="utf-8")
    cat, problems = user_catalogue.validate_file(good)
    assert problems == [] and cat is not None
    assert cat.entries[0].splits["test"][0].file.size == 18
    bad = tmp_path / "bad.yaml"
    bad.write_text(head + "        size: lots\n" + options, encoding="utf-8")
    problems = user_catalogue.validate_file(bad)[1]
    assert len(problems) == 1 and problems[0].startswith(f"{bad}:16:") and "size" in problems[0]


def test_every_packaged_pinned_download_declares_its_size():
    """sha256 and size come together from the generator (both from the mirror's byte-identical file)."""
    refs = 0
    for path in catalogue_files().values():
        cat = load_catalogue_file(path)
        for entry in cat.entries:
            for parts in entry.splits.values():
                for ref in (r for p in parts for r in p.file_args().values()):
                    assert (ref.sha256 is None) == (ref.size is None), ref.path
                    refs += ref.size is not None
    assert refs > 2000


def test_packaged_sizes_are_the_mirror_files_sizes(shared_data):
    checked = 0
    for path in catalogue_files().values():
        for entry in load_catalogue_file(path).entries:
            for parts in entry.splits.values():
                for ref in (r for p in parts for r in p.file_args().values()):
                    local = shared_data / ref.path
                    if ref.size is not None and local.is_file():
                        assert local.stat().st_size == ref.size, ref.path
                        checked += 1
    assert checked > 20


def test_a_packaged_catalogue_with_a_key_given_twice_is_refused_at_its_second_line(tmp_path):
    path = tmp_path / "tc.yaml"
    path.write_text(catalogue_files()["tc"].read_text(encoding="utf-8").replace(
        "\ntask: tc\n", "\ntask: tc\ntask: sa\n", 1), encoding="utf-8")
    line = path.read_text(encoding="utf-8").splitlines().index("task: sa") + 1
    with pytest.raises(CatalogueError) as err:
        load_catalogue_file(path)
    assert str(err.value) == (f"{path}:{line}: key 'task' appears twice in one mapping (first on line "
                              f"{line - 1}); YAML would keep only the last")


def test_a_key_given_twice_deep_inside_a_packaged_catalogue_is_refused(tmp_path):
    text = catalogue_files()["sa"].read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.strip().startswith("sha256: "))
    path = tmp_path / "sa.yaml"
    path.write_text(text.replace(first, first + "\n" + first, 1), encoding="utf-8")
    with pytest.raises(CatalogueError, match="key 'sha256' appears twice"):
        load_catalogue_file(path)



# -- two user-catalogue messages the 520,000-input fuzz run found over one short line ----------------------

HEAD = "description: x\ndatasets:\n  d: {name: d, licence: CC0-1.0, citation: me}\n"


def test_a_5000_digit_task_name_is_quoted_cut(tmp_path, forget_user_catalogues):
    path = tmp_path / "c.yaml"
    path.write_text("task: mrc" + "9" * 5000 + "\n" + HEAD + "entries: []\n", encoding="utf-8")
    problems = user_catalogue.validate_file(path)[1]
    assert len(problems) == 1 and "\n" not in problems[0] and len(problems[0]) < 600, problems
    assert f"{path}:1: task:" in problems[0] and "(5,003 characters)" in problems[0]


def test_a_key_with_a_line_break_is_quoted_and_the_message_stays_one_line(tmp_path, forget_user_catalogues):
    (tmp_path / "p.tsv").write_text("a\tb\n", encoding="utf-8")
    path = tmp_path / "c.yaml"
    path.write_text("task: tc\n" + HEAD + "varieties:\n- {name: testish, cluster: anglic}\nentries:\n"
                    "- variety: testish\n  dataset: d\n  format: labelled\n  splits:\n    test:\n"
                    "    - file: {path\n\n p.tsv}\n", encoding="utf-8")
    problems = user_catalogue.validate_file(path)[1]
    assert problems and all("\n" not in p for p in problems), problems
    assert any("file.'path\\np.tsv': unknown key" in p for p in problems)
