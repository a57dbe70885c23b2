"""Issue 37 items 3, 4 and 6: one bad file never stops a run, nothing hostile is silently accepted, and no
input costs unbounded bytes. Each hostile input is built here, in tmp_path."""

from __future__ import annotations

import io
import json
import re
import tarfile
from pathlib import Path

import pytest
from http_fakes import LocalServer
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data import fetch as fetch_module
from dialectbench.data import user_catalogue
from dialectbench.data.errors import DataFormatError
from dialectbench.data.fetch import BadArchive, FetchError, download, extract_member
from dialectbench.data.readers import (
    read_conllu,
    read_iob,
    read_labelled,
    read_multiple_choice,
    read_pairs,
)
from dialectbench.data.readers._io import MAX_LINE, IdMaker
from dialectbench.data.source import DataSource

pytestmark = pytest.mark.usefixtures("forget_user_catalogues")

HEAD = """task: tc
description: test
datasets:
  d: {name: d, licence: CC0-1.0, citation: me}
"""
VARIETY = "varieties:\n  - {name: testish, cluster: anglic}\n"
TSV = "index_id\tcategory\ttext\n0\thealth\tsleep is good\n1\tsports\tthey won the match\n"
OPTIONS = "{text_column: text, label_column: category, id_column: index_id, header: true}"


def entry(options: str = OPTIONS, variety: str = "testish", path: str = "t.tsv") -> str:
    return f"""entries:
  - variety: {variety}
    dataset: d
    format: labelled
    options: {options}
    splits: {{test: [{{file: {{path: {path}}}}}]}}
"""


def _write(tmp_path: Path, text: str, data: dict[str, str] | None = None) -> Path:
    for name, body in {"t.tsv": TSV, **(data or {})}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body, encoding="utf-8")
    path = tmp_path / "my.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(tmp_path: Path, text: str, data: dict[str, str] | None = None) -> list[str]:
    problems = user_catalogue.validate_file(_write(tmp_path, text, data))[1]
    for p in problems:  # the one form every problem has
        assert re.match(rf"{re.escape(str(tmp_path))}/\S+:\d+: \S", p) and "\n" not in p and len(p) < 600, p
    return problems


def _line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


# ----------------------------------------------------------------------------- item 3: one bad file
def test_a_labels_csv_row_shorter_than_its_header_is_named_at_its_line(tmp_path):
    text = tmp_path / "x.tsv"
    text.write_text("premise\thypothesis\na\tb\nc\td\n", encoding="utf-8")
    labels = tmp_path / "x.csv"
    labels.write_text("id,label\nx1,0\nx2\n", encoding="utf-8")  # row 2 has no label column
    with pytest.raises(DataFormatError) as err:
        list(read_pairs(text, labels_path=labels, id_column="id", label_map={"0": "entailment"}))
    assert err.value.path == str(labels) and err.value.line == 3 and "expected 2 fields, found 1" in str(err.value)


def test_punycode_and_other_transforming_codecs_are_no_catalogue_encoding(tmp_path):
    for codec in ("punycode", "idna", "rot13", "unicode_escape"):
        [found] = _problems(tmp_path, HEAD + VARIETY + entry(f"{{text_column: 2, encoding: {codec}}}"))
        assert f"unknown text encoding {codec!r}" in found
    out = CliRunner().invoke(app, ["run", "--catalogue", str(tmp_path / "my.yaml"), "--store",
                                   str(tmp_path / "r.sqlite"), "--no-report"])
    assert out.exit_code != 0 and "Traceback" not in out.output and "unknown text encoding" in out.output
    for codec in ("utf-8", "UTF8", "latin-1", "cp1252", "gb18030", "utf-8-sig"):
        assert _problems(tmp_path, HEAD + VARIETY + entry(f"{{text_column: 2, label_column: 1, encoding: {codec}}}"
                                                           ).replace("t.tsv", "u.tsv"),
                         {"u.tsv": "a\tpos\tgood\n"}) == []


def test_a_reader_given_a_codec_that_cannot_decode_files_names_the_file(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(b"xn--abc\tpos\n")
    with pytest.raises(DataFormatError) as err:
        list(read_labelled(p, encoding="punycode", delimiter="\t"))
    assert err.value.path == str(p) and "punycode" in str(err.value)


def test_a_4301_digit_integer_in_a_catalogue_is_one_line_with_its_line(tmp_path):
    text = HEAD + "varieties:\n  - {name: testish, cluster: anglic, speakers: " + "9" * 4301 + "}\n" + entry()
    [found] = _problems(tmp_path, text)
    assert found.startswith(f"{tmp_path / 'my.yaml'}:{_line(text, 'speakers')}:") and "number" in found
    out = CliRunner().invoke(app, ["run", "--catalogue", str(tmp_path / "my.yaml"), "--store",
                                   str(tmp_path / "r.sqlite"), "--no-report"])
    assert out.exit_code != 0 and "Traceback" not in out.output, out.output


def test_whatever_a_reader_raises_is_a_data_error_naming_the_file(tmp_path, monkeypatch):
    """A reader bug on odd input (an IndexError, a UnicodeError) fails that variety with `file: problem`,
    which the runner skips like any DataError, instead of ending the run with a traceback."""
    from dialectbench.data import readers

    def broken(path, **options):
        raise IndexError("list index out of range")
        yield

    monkeypatch.setitem(readers.READERS, "labelled", broken)
    path = _write(tmp_path, HEAD + VARIETY + entry())
    cat = user_catalogue.validate_file(path, read=False)[0]
    src = DataSource(tmp_path, {"tc": cat}, kind="mirror")
    with pytest.raises(DataFormatError) as err:
        src.load("tc", "testish", "test")
    assert err.value.path == str(tmp_path / "t.tsv") and "IndexError" in str(err.value)


def test_a_run_skips_the_variety_whose_file_does_not_read_and_goes_on(tmp_path):
    text = HEAD + """varieties:
  - {name: testish (a:north), cluster: testic, new_cluster: true, representative: true}
  - {name: testish (a:south), cluster: testic, new_cluster: true}
entries:
  - {variety: testish (a:north), dataset: d, format: labelled, options: OPTIONS,
     splits: {train: [{file: {path: t.tsv}}], test: [{file: {path: t.tsv}}]}}
  - {variety: testish (a:south), dataset: d, format: labelled, options: OPTIONS,
     splits: {test: [{file: {path: bad.tsv}}]}}
""".replace("OPTIONS", OPTIONS)
    path = _write(tmp_path, text, {"t.tsv": TSV * 3, "bad.tsv": "index_id\tcategory\ttext\n0\thealth\n"})
    out = CliRunner().invoke(app, ["run", "--catalogue", str(path), "-t", "tc", "--clusters", "testic",
                                   "--settings", "in-cluster", "--out", str(tmp_path / "out"), "--no-report"])
    flat = " ".join(out.output.split())
    assert "Traceback" not in out.output and "bad.tsv:2" in flat.replace(" ", ""), out.output
    assert "testish (a:north)" in flat


# ------------------------------------------------------------------------- item 4: silent acceptance
def test_a_key_given_twice_in_one_mapping_is_refused_at_its_second_line(tmp_path):
    text = HEAD.replace("task: tc\n", "task: tc\ntask: sa\n") + VARIETY + entry()
    [found] = _problems(tmp_path, text)
    assert found.startswith(f"{tmp_path / 'my.yaml'}:2:") and "'task' appears twice" in found and "line 1" in found
    text = HEAD + VARIETY + entry("{text_column: text, text_column: category}")
    assert any("'text_column' appears twice" in p for p in _problems(tmp_path, text))


def test_a_yaml_merge_key_is_not_a_duplicate(tmp_path):
    text = HEAD + "x: &o {text_column: text}\n" + VARIETY + entry()
    assert not any("appears twice" in p for p in _problems(tmp_path, text))


def test_a_data_file_that_links_out_of_the_catalogue_folder_is_refused_unquoted(tmp_path):
    secret = tmp_path / "outside" / "secret.tsv"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET-LINE\tx\ty\n", encoding="utf-8")
    folder = tmp_path / "cat"
    folder.mkdir()
    (folder / "link.tsv").symlink_to(secret)
    text = HEAD + VARIETY + entry(path="link.tsv")
    problems = _problems(folder, text)
    assert len(problems) == 1 and "symbolic link that leaves" in problems[0], problems
    assert "TOP-SECRET" not in " ".join(problems)
    out = CliRunner().invoke(app, ["run", "--catalogue", str(folder / "my.yaml"), "--store",
                                   str(tmp_path / "r.sqlite"), "--no-report"])
    assert out.exit_code != 0 and "TOP-SECRET" not in out.output and "Traceback" not in out.output


def test_a_link_inside_the_catalogue_folder_is_fine(tmp_path):
    (tmp_path / "real.tsv").write_text(TSV, encoding="utf-8")
    (tmp_path / "link.tsv").symlink_to(tmp_path / "real.tsv")
    assert _problems(tmp_path, HEAD + VARIETY + entry(path="link.tsv")) == []


@pytest.mark.parametrize("char", ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff"])
def test_variety_names_with_invisible_characters_are_refused(tmp_path, char):
    name = f"testish{char}"
    text = HEAD + f'varieties:\n  - {{name: "{name}", cluster: anglic}}\n' + entry(variety=f'"{name}"')
    problems = _problems(tmp_path, text)
    assert problems and all(f"U+{ord(char):04X}" in p for p in problems), problems


@pytest.mark.parametrize("value", [None, ["x"], 5, {"a": "b"}, True])
def test_non_string_json_text_in_pairs_is_refused(tmp_path, value):
    p = tmp_path / "x.jsonl"
    p.write_text(json.dumps({"premise": value, "hypothesis": "h", "label": "neutral"}) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        list(read_pairs(p))
    assert err.value.line == 1 and "premise" in err.value.problem and "\n" not in str(err.value)


def test_an_integer_label_or_id_in_json_pairs_still_reads(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text(json.dumps({"premise": "p", "hypothesis": "h", "label": 1, "id": 7}) + "\n", encoding="utf-8")
    [ex] = list(read_pairs(p, id_column="id", label_map={"1": "neutral"}))
    assert (ex.example_id, ex.label) == ("x:7", "neutral")


BELEBELE = {"link": "u", "question_number": 1, "flores_passage": "p", "question": "q", "mc_answer1": "a",
            "mc_answer2": "b", "mc_answer3": "c", "mc_answer4": "d", "correct_answer_num": "2"}


@pytest.mark.parametrize("key", ["flores_passage", "question", "mc_answer3", "link"])
@pytest.mark.parametrize("value", [None, ["x"], 5.5, {"a": 1}])
def test_non_string_json_text_in_multiple_choice_is_refused(tmp_path, key, value):
    p = tmp_path / "x.jsonl"
    p.write_text(json.dumps({**BELEBELE, key: value}) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        list(read_multiple_choice(p))
    assert err.value.line == 1 and key in err.value.problem


def test_an_iob_file_whose_first_token_is_a_number_keeps_its_token_column(tmp_path):
    p = tmp_path / "x.bio"
    p.write_text("1999\tCD\tO\nParis\tNNP\tB-LOC\n\n2\tCD\tO\nOslo\tNNP\tS-LOC\n", encoding="utf-8")
    sentences = list(read_iob(p))
    assert [s.tokens for s in sentences] == [("1999", "Paris"), ("2", "Oslo")]
    q = tmp_path / "y.bioes"  # Johansen's layout, ids counting 1, 2, ...: the form is column 1
    q.write_text("# sent_id = a\n1\tJohn\tjohn\tPROPN\tB-PER\n2\tran\trun\tVERB\tO\n\n"
                 "1\t12\t12\tNUM\tO\n", encoding="utf-8")
    assert [s.tokens for s in read_iob(q)] == [("John", "ran"), ("12",)]


def test_made_ids_never_collide_with_real_ones():
    ids = IdMaker(Path("f.conllu"))
    made = [ids(k, i) for i, k in enumerate(["x@2", "x", "x", "x@2", "x"])]
    assert len(set(made)) == len(made), made
    assert made[:2] == ["f:x@2", "f:x"]


def test_a_conllu_index_suffix_equal_to_a_real_sent_id_stays_unique(tmp_path):
    block = "1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n\n"
    p = tmp_path / "t.conllu"
    p.write_text("".join(f"# sent_id = {s}\n{block}" for s in ["s@2", "s", "s"]), encoding="utf-8")
    ids = [s.example_id for s in read_conllu(p)]
    assert len(set(ids)) == 3, ids


def test_duplicate_id_column_values_are_made_unique(tmp_path):
    t = tmp_path / "t.tsv"
    t.write_text("id\ttext\tlabel\na\tone\tx\na\ttwo\ty\na@1\tthree\tz\n", encoding="utf-8")
    ids = [e.example_id for e in read_labelled(t, text_column=1, label_column=2, id_column=0, header=True)]
    assert ids[0] == "t:a" and len(set(ids)) == 3, ids
    p = tmp_path / "p.tsv"
    p.write_text("premise\thypothesis\tlabel\tid\na\tb\tneutral\tk\nc\td\tneutral\tk\n", encoding="utf-8")
    ids = [e.example_id for e in read_pairs(p, id_column="id")]
    assert ids[0] == "p:k" and len(set(ids)) == 2, ids
    m = tmp_path / "m.jsonl"
    m.write_text(json.dumps(BELEBELE) + "\n" + json.dumps(BELEBELE) + "\n", encoding="utf-8")
    ids = [e.example_id for e in read_multiple_choice(m)]
    assert ids[0] == "m:u#1" and len(set(ids)) == 2, ids


# ---------------------------------------------------------------------------- item 6: unbounded bytes
def _tar_header(name: bytes, size: int, kind: bytes) -> bytes:
    """One 512-byte ustar/GNU header block declaring `size` bytes of data, with a valid checksum."""
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b"0000644\0"
    h[124:136] = f"{size:011o}\0".encode()
    h[136:148] = b"00000000000\0"
    h[156:157] = kind
    h[257:265] = b"ustar  \0"
    h[148:156] = b"        "
    h[148:156] = f"{sum(h):06o}\0 ".encode()
    return bytes(h)


@pytest.mark.parametrize("kind, what", [(b"L", "GNU long-name"), (b"x", "PAX")])
def test_a_tar_header_block_declaring_a_gibibyte_is_refused_before_it_is_read(tmp_path, kind, what):
    import gzip

    raw = _tar_header(b"././@LongLink", 1 << 30, kind) + b"a" * (1 << 16)  # declares 1 GiB, holds 64 KiB
    archive = tmp_path / "bomb.tar.gz"
    archive.write_bytes(gzip.compress(raw))
    with pytest.raises(BadArchive) as err:
        extract_member(archive, "x.txt", tmp_path / "x.txt")
    assert what in str(err.value) and "1,073,741,824" in str(err.value)
    assert not (tmp_path / "x.txt").exists()


def test_an_ordinary_long_name_tar_still_extracts(tmp_path):
    name = "d/" + "n" * 200 + ".txt"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as tf:
        info = tarfile.TarInfo(name)
        info.size = 3
        tf.addfile(info, io.BytesIO(b"abc"))
    archive = tmp_path / "ok.tar.gz"
    archive.write_bytes(buf.getvalue())
    assert extract_member(archive, name, tmp_path / "out.txt").read_bytes() == b"abc"


def _endless(handler, server) -> None:
    handler.send_response(200)
    if server.declare is not None:
        handler.send_header("Content-Length", str(server.declare))
    handler.end_headers()
    try:
        for _ in range(server.blocks):
            handler.wfile.write(b"x" * 65536)
    except (BrokenPipeError, ConnectionResetError):
        pass
    handler.close_connection = True


@pytest.fixture
def endless():
    s = LocalServer(_endless)
    s.declare, s.blocks = None, 64
    yield s
    s.close()


def test_a_response_without_content_length_is_cut_at_the_download_limit(endless, tmp_path, monkeypatch):
    monkeypatch.setenv(fetch_module.ENV_MAX_DOWNLOAD, str(1 << 20))  # 1 MiB; the server sends 4 MiB
    dest = tmp_path / "f.bin"
    with pytest.raises(FetchError) as err:
        download(f"{endless.url}/f", dest, retries=3, backoff=0)
    assert "1,048,576" in str(err.value) and fetch_module.ENV_MAX_DOWNLOAD in str(err.value)
    assert endless.hits["/f"] == 1  # not retried: it would only fetch as much again
    assert list(tmp_path.iterdir()) == []


def test_a_declared_length_over_the_limit_is_refused_before_the_body(endless, tmp_path, monkeypatch):
    monkeypatch.setenv(fetch_module.ENV_MAX_DOWNLOAD, str(1 << 20))
    endless.declare = 5 << 30
    with pytest.raises(FetchError) as err:
        download(f"{endless.url}/f", tmp_path / "f.bin", retries=1)
    assert "declares 5,368,709,120 bytes" in str(err.value)


def test_a_download_within_the_limit_is_kept(endless, tmp_path, monkeypatch):
    monkeypatch.setenv(fetch_module.ENV_MAX_DOWNLOAD, str(1 << 20))
    endless.blocks = 2
    assert download(f"{endless.url}/f", tmp_path / "f.bin").stat().st_size == 2 * 65536


def test_a_line_over_the_limit_fails_at_its_line_without_reading_the_rest(tmp_path, monkeypatch):
    p = tmp_path / "x.bio"
    p.write_bytes(b"a O\n\n" + b"x" * (MAX_LINE + 10) + b" O\n")
    with pytest.raises(DataFormatError) as err:
        list(read_iob(p))
    assert err.value.line == 3 and f"over {MAX_LINE:,} bytes" in err.value.problem
    read = []
    real_open = Path.open

    def counting_open(self, *args, **kwargs):  # what is read of a headerless file with no line end
        fh = real_open(self, *args, **kwargs)
        real_read = fh.read

        def read_counted(n=-1):
            chunk = real_read(n)
            read.append(len(chunk))
            return chunk
        fh.read = read_counted
        return fh

    q = tmp_path / "big.txt"
    with q.open("wb") as fh:
        for _ in range(8):
            fh.write(b"y" * (1 << 20))
    monkeypatch.setattr(Path, "open", counting_open)
    with pytest.raises(DataFormatError) as err:
        list(read_labelled(q, delimiter="\t", header=False))
    assert err.value.line == 1 and sum(read) <= 2 * (1 << 20) + 1, sum(read)


def test_lines_at_the_limit_and_long_json_documents_still_read(tmp_path):
    p = tmp_path / "x.txt"
    p.write_bytes(b"y" * (MAX_LINE - 10) + b"\tpos\r\n" + b"z\tneg\r")
    assert [e.label for e in read_labelled(p, text_column=0, label_column=1)] == ["pos", "neg"]
    doc = tmp_path / "d.json"
    doc.write_text(json.dumps([{**BELEBELE, "flores_passage": "w " * MAX_LINE}]), encoding="utf-8")
    assert len(list(read_multiple_choice(doc))) == 1
