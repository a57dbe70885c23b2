"""SD-QA in all five languages: the readers on a small synthetic fixture per language layout, per-script
normalization, Table 2 / 9 / 12-14 layouts, the metadata audit, `fairness` refusing to pool two systems,
the gold-passage QA half, and (when ../shared/data exists) the reproduction of seed 001 Tables 2 and 12."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.sdqa import SDQAError, WerOptions, get_normalization, load_sdqa, wer_report
from dialectbench.sdqa.dialects import DIALECTS, POPULATION_SOURCE, label
from dialectbench.sdqa.languages import compare_table2, language_reports, load_languages, table12
from dialectbench.sdqa.metadata import audit_metadata
from dialectbench.sdqa.wer import word_edits

# one layout per language, as released: (lang, file stem, gold column, transcript columns, gold rows)
LAYOUTS = {
    "ara": ("arabic", ["mar-ar-MA", "dza-ar-DZ"],
            [("1", "ما هي عاصمة مصر؟", "ما هي عاصمه مصر", "ما هي عاصمة مصر"),
             ("2", "من هو أول رئيس، للجزائر؟", "من هو اول رئيس للجزائر", "")]),
    "ben": ("bengali", ["ind-bn-BD", "ind-bn-IN", "dhaka-bn-IN", "dhaka-bn-BD"],
            [("1", "রাশিয়ার প্রধানমন্ত্রী কে ?", "রাশিয়ার প্রধানমন্ত্রী কে", "রাশিয়ার প্রধানমন্ত্রী কে",
              "রাশিয়ার মন্ত্রী কে", "রাশিয়ার মন্ত্রী কে")]),
    "kor": ("korean", ["korn-ko-KR", "kors-ko-KR"],
            [("1", "프랑스의 대통령은 누구인가요?", "프랑스의 대통령은 누구인가요", "프랑스의 대통령은 누구 인가요")]),
    "swa": ("swahili", ["kenya-sw-TZ", "kenya-sw-KE", "tanzania-sw-KE", "tanzania-sw-TZ"],
            [("1", "Je, Rais wa kwanza ni nani?", "je rais wa kwanza ni nani", "je rais wa kwanza ni nani",
              "je rais kwanza nani", "je rais kwanza nani")]),
}
# English as released for test: the split marker "in XOR test" and locale columns in the test file's own order
ENG_TEST = ("english", ["usa-en-US", "gbr-en-US", "gbr-en-GB", "phl-en-PH", "phl-en-US"],
            [("7", "Do zebras have stripes?", "do zebras have stripes", "do zebra have stripes",
              "do zebras have stripes", "do zebras have tribes", "do zebras have stripes")])
META = "example_id,user_id,region,language,gender,age,device,lang_spoken,mother_tongue,audio_file\n"


def write_layout(root, lang, split="dev", metadata=None):
    stem, cols, rows = LAYOUTS.get(lang, ENG_TEST)
    folder = root / split / lang
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{stem}.{split}.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["", "ID", f"in XOR {split}", f"{stem}-gold", *cols])
        for i, (qid, gold, *hyps) in enumerate(rows):
            w.writerow([i, qid, "True", gold, *hyps])
    for dialect, text in (metadata or {}).items():
        (folder / dialect).mkdir(exist_ok=True)
        (folder / dialect / "metadata.csv").write_text(META + text, encoding="utf-8")
    return root


@pytest.fixture
def five(tmp_path):
    meta = {"ara": {"mar": "1,u1,r,ar,female,2021,d,a,a,x.wav\n2,u1,r,ar,female,2021,d,a,a,y.wav\n",
                    "dza": "1,u2,r,ar,male,30,d,a,a,x.wav\n2,u2,r,ar,male,30,d,a,a,y.wav\n"},
            "swa": {"kenya": "1,u3,r,sw,na,na,d,a,a,x.wav\n1,u4,r,sw,male,25,d,a,a,z.wav\n",
                    "tanzania": "1,u5,r,sw,female,40,d,a,a,x.wav\n"}}
    for lang in LAYOUTS:
        write_layout(tmp_path, lang, metadata=meta.get(lang))
    return tmp_path


# ---- packaged data

def test_population_table_is_packaged_with_its_source():
    assert len(DIALECTS) == 24 and "Table 7" in POPULATION_SOURCE and "Ethnologue" in POPULATION_SOURCE
    assert DIALECTS[("eng", "gbr")].label == "SCO" and DIALECTS[("eng", "gbr")].population == 5.46
    assert DIALECTS[("ben", "dhaka")].population == 163 and DIALECTS[("swa", "tanzania")].label == "TZA"
    assert sum(d.population for d in DIALECTS.values() if d.lang == "ara") == pytest.approx(145.59)
    assert label("kor", "kors") == "KOR-SE" and label("kor", "nowhere") == "nowhere"


# ---- normalization, per script

def test_final_punctuation_of_every_script_is_dropped_from_the_reference():
    paper = get_normalization("paper")
    assert paper.words("ما هي عاصمة مصر؟", reference=True)[-1] == "مصر"
    assert paper.words("রাশিয়ার প্রধানমন্ত্রী কে ?", reference=True)[-1] == "কে"
    assert paper.words("তিনি কে।", reference=True)[-1] == "কে"
    assert paper.words("누구인가요?", reference=True) == ("누구인가요",)
    assert paper.words("Who is he.", reference=True) == ("who", "is", "he")
    # only the reference loses its final mark; a hypothesis keeps what the ASR wrote
    assert paper.words("مصر؟") == ("مصر؟",)


def test_inner_punctuation_and_arabic_orthography():
    paper, std, ara = (get_normalization(n) for n in ("paper", "standard", "arabic"))
    text = "من هو أول رئيس، للجزائر؟"
    assert "رئيس،" in paper.words(text, reference=True)          # the paper keeps the Arabic comma
    assert std.words(text, reference=True) == ("من", "هو", "أول", "رئيس", "للجزائر")
    assert ara.words("أوّل مدينة") == ("اول", "مدينه")            # hamza, shadda, teh marbuta unified
    # Bengali vowel signs are marks, not punctuation: `standard` must not split words at them
    assert std.words("প্রধানমন্ত্রী, কে") == ("প্রধানমন্ত্রী", "কে")


def test_korean_spacing_counts_and_nfc_is_applied():
    paper = get_normalization("paper")
    ref, hyp = paper.words("누구인가요?", reference=True), paper.words("누구 인가요")
    assert word_edits([(ref, hyp)]) == [2]  # one substitution, one insertion: eojeol are the words
    decomposed, composed = "\u09af\u09bc", "\u09df"  # Bengali YYA: NFC writes it decomposed
    assert paper.words(composed) == paper.words(decomposed)


def test_number_words_are_english_only(five):
    corpus = load_sdqa(five, "ara", "dev")
    with pytest.raises(SDQAError, match="English only"):
        wer_report(corpus, options=WerOptions(get_normalization("standard-numbers")))


# ---- readers and tables per layout (synthetic)

def test_each_layout_reads_with_its_locales_and_paper_labels(five):
    corpora, absent, _ = load_languages(five, "all", "dev")
    assert list(corpora) == ["eng", "ara", "ben", "kor", "swa"][1:] and absent == ["eng"]
    assert corpora["ara"].models == {"mar": ["ar-MA"], "dza": ["ar-DZ"]}
    assert corpora["ben"].localized("dhaka") == "bn-BD" and corpora["ben"].localized("ind") == "bn-IN"
    reps = language_reports(corpora, WerOptions(), "dev")
    t2 = {r.lang: r.wer.table2 for r in reps}
    assert list(t2["ara"].columns[1:3]) == ["DZA", "MAR"]         # the paper's column order, its labels
    # عاصمه, اول and رئيس، differ from the gold (hamza, teh marbuta, comma kept): 3 edits / 4 + 5 words
    assert t2["ara"]["MAR"].iloc[0] == pytest.approx(100 * 3 / 9)
    assert t2["ara"]["DZA"].iloc[0] == pytest.approx(100 * 5 / 9)  # empty transcript = 5 deletions
    assert list(t2["ben"]["model"]) == ["bn-BD", "bn-IN"] and t2["ben"]["IND"].iloc[0] == 0
    assert t2["ben"]["BGD"].iloc[0] == pytest.approx(100 / 3)
    assert t2["kor"]["KOR-SE"].iloc[0] == pytest.approx(100 * 2 / 3)  # spacing: 1 substitution + 1 insertion
    # "je," keeps its comma under `paper`: Kenya 1 edit / 6 words, Tanzania 3 / 6
    assert (t2["swa"]["KEN"].iloc[0], t2["swa"]["TZA"].iloc[0]) == (pytest.approx(100 / 6), pytest.approx(50))
    # avg_pop with the packaged populations: Kenya 52.6, Tanzania 58
    assert t2["swa"]["avg_pop"].iloc[0] == pytest.approx((52.6 * 100 / 6 + 58 * 50) / 110.6)
    dz = reps[0].wer.dialects.set_index("dialect")
    assert dz.loc["dza", "empty"] == 1 and dz.loc["mar", "empty"] == 0


def test_metadata_errors_are_counted_and_their_utterances_kept(five):
    rec = audit_metadata(five / "dev" / "ara" / "mar" / "metadata.csv", "ara", "mar")
    assert (rec["recordings"], rec["age_invalid"], rec["invalid_examples"]) == (2, 2, "2021x2")
    rec = audit_metadata(five / "dev" / "swa" / "kenya" / "metadata.csv", "swa", "kenya")
    assert (rec["recorded_twice"], rec["conflicting"], rec["age_missing"], rec["gender_missing"]) == (1, 1, 1, 1)
    rep = wer_report(load_sdqa(five, "ara", "dev"))
    age = rep.age.set_index(["dialect", "age_group"])["n"]
    assert age[("mar", "unknown")] == 2 and age[("dza", "18-30")] == 2  # nothing dropped
    gender = wer_report(load_sdqa(five, "swa", "dev")).gender
    assert gender.groupby("row")["n"].sum().tolist() == [2, 2]


def test_ragged_metadata_names_file_and_line(tmp_path):
    write_layout(tmp_path, "kor", metadata={"korn": "1,u1,r,ko,male\n"})
    with pytest.raises(ValueError, match=r"metadata.csv:2"):
        audit_metadata(tmp_path / "dev" / "kor" / "korn" / "metadata.csv", "kor", "korn")


def test_test_split_prints_table_9_and_all_languages(tmp_path):
    write_layout(tmp_path, "kor", split="test")
    write_layout(tmp_path, "swa", split="test")
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "all", "--split", "test"],
                             env={"COLUMNS": "60"})
    assert res.exit_code == 0, res.output
    assert "Table 9" in res.stdout and "KOR-SE" in res.stdout and "TZA" in res.stdout
    assert "eng, ara, ben" in res.stderr  # the absent languages are named, not skipped in silence
    js = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "all", "--split", "test",
                                  "--view", "table12", "--format", "json"])
    rows = json.loads(js.stdout)
    assert [r["lang"] for r in rows] == ["kor", "swa", "all"]
    for r in rows:
        assert r["within"] + r["between"] == pytest.approx(r["unfairness"], abs=1e-4)


def test_test_split_reads_all_five_languages_with_their_metadata(tmp_path):
    """The released test layout: "in XOR test", every language (English included), per-dialect metadata."""
    meta = {"eng": {"gbr": "0,7,u1,gbr,eng,female,41,d,a,a,x.wav\n"},
            "kor": {"korn": "0,1,u2,korn,kor,male,25,d,a,a,x.wav\n"}}
    for lang in ("eng", "ara", "ben", "kor", "swa"):
        write_layout(tmp_path, lang, split="test", metadata=meta.get(lang))
    for path in tmp_path.glob("test/*/*/metadata.csv"):  # the released metadata has a leading index column
        path.write_text("," + path.read_text(), encoding="utf-8")
    corpora, absent, problems = load_languages(tmp_path, "all", "test")
    assert absent == problems == [] and list(corpora) == ["eng", "ara", "ben", "kor", "swa"]
    eng = corpora["eng"]
    assert eng.models == {"usa": ["en-US"], "gbr": ["en-US", "en-GB"], "phl": ["en-PH", "en-US"]}
    assert eng.localized("gbr") == "en-GB" and eng.localized("phl") == "en-PH"
    (gbr,) = eng.by_dialect("gbr")
    assert (gbr.speaker_gender, gbr.speaker_age, gbr.transcripts["en-US"]) == ("female", "41", "do zebra have stripes")
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "all", "--split", "test",
                                   "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "Table 9" not in res.stdout and json.loads(res.stdout)  # JSON on stdout, valid and non-empty
    table = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "eng", "--split",
                                     "test"], env={"COLUMNS": "80"})
    assert table.exit_code == 0, table.output
    assert "Table 9" in table.stdout and "SCO" in table.stdout and "PHI" in table.stdout


def test_all_languages_go_on_past_an_unreadable_one_and_name_it(tmp_path):
    for lang in ("kor", "swa"):
        write_layout(tmp_path, lang)
    path = tmp_path / "dev" / "swa" / "swahili.dev.csv"
    path.write_text(path.read_text(encoding="utf-8") + "9,2\n", encoding="utf-8")  # a ragged row
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "all", "--view",
                                   "table12", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert {r["lang"] for r in json.loads(res.stdout)} == {"kor"}  # Korean scored, Swahili named below
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"{path}:3:" in errors[0] and "(swa)" in errors[0]
    assert "1 language(s) could not be read; 1 scored" in res.stderr and "eng, ara, ben" in res.stderr


def test_split_marker_of_any_split_is_not_a_dialect_column(tmp_path):
    write_layout(tmp_path, "kor", split="test")
    path = tmp_path / "test" / "kor" / "korean.test.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("in XOR test", "in XOR tst"), encoding="utf-8")
    assert load_sdqa(tmp_path, "kor", "test").dialects == ["korn", "kors"]
    path.write_text(path.read_text(encoding="utf-8").replace("in XOR tst", "inXORtest"), encoding="utf-8")
    with pytest.raises(SDQAError, match="inXORtest"):  # not the marker's shape: named, not guessed
        load_sdqa(tmp_path, "kor", "test")


def test_unknown_language_is_named_with_suggestions(tmp_path):
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "kro"])
    assert res.exit_code != 0 and "kro" in res.stderr and "kor" in res.stderr


# ---- utterances and fairness never pool two ASR models

def test_utterances_csv_has_model_column_and_fairness_refuses_to_pool(five, tmp_path):
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(five), "--lang", "ben", "--view",
                                   "utterances", "--format", "csv"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "utt.csv"
    out.write_text(res.stdout)
    rows = list(csv.DictReader(out.open()))
    assert {"lang", "row", "model", "dialect", "benefit"} <= set(rows[0])
    assert {r["model"] for r in rows} == {"bn-BD", "bn-IN"}
    bad = CliRunner().invoke(app, ["fairness", str(out), "-g", "dialect", "-v", "benefit"])
    assert bad.exit_code != 0 and "--by row" in bad.stderr and "pooled" in bad.stderr
    ok = CliRunner().invoke(app, ["fairness", str(out), "-g", "dialect", "-v", "benefit", "--by", "row",
                                  "--format", "json"])
    assert ok.exit_code == 0, ok.output
    got = json.loads(ok.stdout)
    assert [r["row"] for r in got if r["group"] == "(all)"] == ["bn-BD", "bn-IN"]


# ---- the QA half: gold-passage files

def _goldp(root, lang_name, dialect, items):
    data = {"data": [{"title": "t", "paragraphs": [{"context": ctx, "qas": [
        {"id": f"{lang_name}-{qid}-{dialect}", "question": q, "answers": [{"text": a, "answer_start": ctx.find(a)}]}]}]}
        for qid, q, ctx, a in items]}
    folder = root / "sd-qa-goldp" / "dev"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"sdqa-dev-{lang_name}-{dialect}.json").write_text(json.dumps(data, ensure_ascii=False))


def test_goldp_scores_counts_empty_questions_and_joins_wer(tmp_path):
    from dialectbench.sdqa.goldp import Reader, run_goldp

    sd = write_layout(tmp_path / "sd-qa", "swa")
    ctx = "Julius Nyerere alikuwa rais wa kwanza wa Tanzania. Alizaliwa mwaka 1922."
    _goldp(tmp_path, "swahili", "kenya", [("1", "je rais wa kwanza ni nani?", ctx, "Julius Nyerere")])
    _goldp(tmp_path, "swahili", "tanzania", [("1", "?", ctx, "Julius Nyerere")])
    res = run_goldp(tmp_path / "sd-qa-goldp", sdqa_dir=sd, langs=["swa"], reader=Reader())
    f1 = res.f1.set_index("dialect")
    assert f1.loc["tanzania", "empty_questions"] == 1 and f1.loc["kenya", "empty_questions"] == 0
    assert f1.loc["tanzania", "label"] == "TZA" and f1.loc["kenya", "wer"] == pytest.approx(100 / 6)  # "je," vs "je"
    assert "gold" in f1.index and f1.loc["gold", "n"] == 1
    q = res.questions
    assert ((q["f1"] >= 0) & (q["f1"] <= 1)).all() and len(q) == 3
    (u,) = res.unfairness
    assert u["lang"] == "swa" and u["empty_questions"] == 1 and u["n"] == 2
    (m,) = res.mixed
    assert m["lang"] == "swa" and m["note"]  # two questions cannot fit a mixed model: it says so


def test_goldp_bad_question_id_is_named(tmp_path):
    from dialectbench.sdqa.goldp import read_goldp

    _goldp(tmp_path, "korean", "korn", [("1", "q?", "ctx a", "a")])
    path = tmp_path / "sd-qa-goldp" / "dev" / "sdqa-dev-korean-korn.json"
    path.write_text(path.read_text().replace("korean-1-korn", "oops"))
    with pytest.raises(SDQAError, match="oops"):
        read_goldp(tmp_path / "sd-qa-goldp", ["kor"])


# ---- report --sdqa with labels for every language

def test_report_sdqa_uses_paper_labels_and_packaged_populations(tmp_path):
    import pandas as pd

    from dialectbench.report.sdqa import load_sdqa_results, sdqa_layout

    df = pd.DataFrame({"lang": ["eng", "eng", "kor", "kor"], "dialect": ["gbr", "usa", "korn", "kors"],
                       "wer": [10.0, 8.0, 28.0, 25.0], "f1": [40.0, 42.0, 30.0, 33.0]})
    res = load_sdqa_results(df)
    assert set(res["dialects"]["dialect"]) == {"SCO", "USA-SE", "KOR-C", "KOR-SE"}
    s = res["summary"].set_index(["model", "metric"])
    assert s.loc[("kor all", "wer"), "avg_pop"] == pytest.approx((28 * 47 + 25 * 2.8) / 49.8)
    tables = sdqa_layout(res)
    shown = {r["dialect"] for r in tables[0].rows}
    assert "gbr" not in shown and "SCO" in shown


# ---- the released data (skipped without ../shared/data)

@pytest.fixture(scope="module")
def all_reports(shared_data):
    corpora, absent, _ = load_languages(shared_data / "sd-qa", "all", "dev")
    assert absent == []
    return language_reports(corpora, WerOptions(), "dev")


def test_table2_cells_reproduced_per_language(all_reports):
    cmp = compare_table2(all_reports)
    per = cmp.groupby("lang")["reproduces"].agg(["sum", "size"])
    assert per.loc["eng"].tolist() == [19, 21] and per.loc["kor"].tolist() == [2, 2]
    assert per.loc["swa"].tolist() == [4, 4]
    # Arabic: every cell ~2 % below the paper's (EGY 1.3 above); Bengali: ~8 points below (see the note:
    # the repository's gold has precomposed nukta letters, the ASR decomposed ones)
    assert per.loc["ara"].tolist() == [0, 7] and per.loc["ben"].tolist() == [0, 4]
    ben = cmp[cmp["lang"] == "ben"]
    assert (ben["diff"] < -7).all() and (ben["diff"] > -8.5).all()


def test_table12_unfairness_per_language(all_reports):
    rows = {(r["lang"], r["model"]): r for r in table12(all_reports, WerOptions())}
    paper = {("eng", "en-US"): 0.02456, ("eng", "localized"): 0.02282, ("ara", "localized"): 0.07701,
             ("kor", "localized"): 0.08674, ("swa", "localized"): 0.11152}
    for key, value in paper.items():
        assert rows[key]["unfairness"] == pytest.approx(value, rel=0.05), key
    assert rows[("ara", "localized")]["unfairness"] == pytest.approx(0.07701, abs=1e-5)
    assert rows[("eng", "localized")]["avg_wer"] == pytest.approx(11.35, abs=0.05)  # avg_L, USA included
    a = rows[("all", "localized")]
    assert a["within"] + a["between"] == pytest.approx(a["unfairness"], rel=1e-9) and a["n"] > 20000


def test_breakdown_supports_cover_every_utterance(all_reports):
    for rep in all_reports:
        g = rep.wer.gender.groupby(["row", "dialect"])["n"].sum()
        n = rep.wer.dialects.set_index(["row", "dialect"])["n"]
        assert (g.sort_index() == n.sort_index()).all(), rep.lang
    swa = next(r for r in all_reports if r.lang == "swa")
    ken = next(m for m in swa.metadata if m["dialect"] == "kenya")
    assert ken["age_invalid"] == 1 and "2021" in ken["invalid_examples"] and ken["recorded_twice"] > 200


def test_goldp_real_korean(shared_data):
    from dialectbench.sdqa.goldp import Reader, run_goldp

    res = run_goldp(shared_data / "sd-qa-goldp", sdqa_dir=shared_data / "sd-qa", langs=["kor"], reader=Reader())
    f1 = res.f1.set_index("dialect")
    assert f1.loc["korn", "n"] == 60 and f1.loc["kors", "n"] == 60 and f1.loc["gold", "n"] == 60
    assert f1.loc["korn", "no_wer"] == 0 and np.isfinite(f1.loc["kors", "wer"])
    (sp,) = res.spearman
    assert sp["n_questions"] == 120 and sp["n_dialects"] == 2 and -1 <= sp["rho_questions"] <= 1


# Seed 001 Table 13, Arabic (ar-VAR): (female WER, n), (male WER, n) per dialect
PAPER_ARA_GENDER = {"dza": ((39.68, 168), (37.07, 540)), "bhr": ((35.01, 270), (35.9, 438)),
                    "egy": ((38.64, 168), (36.64, 540)), "jor": ((33.81, 270), (36.22, 438)),
                    "mar": ((34.67, 672), (41.7, 36)), "sau": ((36.48, 540), (33.37, 168)),
                    "tun": ((34.2, 270), (35.28, 438))}


def test_arabic_gender_breakdown_reproduces_table_13(all_reports):
    # ours agree with the paper's Table 13 to 0.15 WER in all 14 cells, with the same supports, although
    # its Table 2 Arabic row is ~2 % above what these cells pool to: Table 2's is the inconsistent one
    ara = next(r for r in all_reports if r.lang == "ara").wer.gender.set_index(["dialect", "gender"])
    for dialect, cells in PAPER_ARA_GENDER.items():
        for gender, (wer, n) in zip(("female", "male"), cells):
            assert ara.loc[(dialect, gender), "n"] == n, (dialect, gender)
            assert ara.loc[(dialect, gender), "wer"] == pytest.approx(wer, abs=0.15), (dialect, gender)


def test_cli_compare_paper_korean(shared_data):
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(shared_data / "sd-qa"), "--lang", "kor",
                                   "--compare-paper"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert "2 of 2 cells within 0.5 WER" in res.stdout and "KOR-SE" in res.stdout and "kors" not in res.stdout
    js = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(shared_data / "sd-qa"), "--lang", "kor",
                                  "--view", "paper", "--format", "json"])
    rows = json.loads(js.stdout)
    assert {(r["label"], r["paper"]) for r in rows} == {("KOR-C", 27.95), ("KOR-SE", 24.63)}


def test_goldp_real_files_and_their_54_empty_questions(shared_data):
    from dialectbench.sdqa.goldp import is_empty_question, read_goldp

    sets = read_goldp(shared_data / "sd-qa-goldp", ["eng", "ara", "ben", "kor", "swa"])
    assert len(sets) == 24
    empty = {(s.lang, s.dialect): sum(is_empty_question(e.question) for e in s.examples) for s in sets}
    assert sum(empty.values()) == 54
    assert empty[("ara", "dza")] == 19 and empty[("swa", "tanzania")] == 17 and empty[("eng", "kenya")] == 13


def test_cli_goldp_flags_a_reader_that_barely_answers(tmp_path):
    write_layout(tmp_path / "sd-qa", "kor")
    ctx = "샤를 드골은 프랑스의 제1대 대통령이다. 그는 1890년에 태어났다."
    _goldp(tmp_path, "korean", "korn", [("1", "프랑스의 대통령은 누구인가요?", ctx, "샤를 드골")])
    _goldp(tmp_path, "korean", "kors", [("1", "?", ctx, "샤를 드골")])
    res = CliRunner().invoke(app, ["sdqa", "goldp", "--data-dir", str(tmp_path / "sd-qa-goldp"), "--lang", "kor",
                                   "--train", "none", "--no-mixed", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["dialect"]: r for r in json.loads(res.stdout)}
    assert rows["kors"]["empty_questions"] == 1 and rows["kors"]["label"] == "KOR-SE" and "gold" in rows
    assert ("measure noise" in res.stderr) == (rows["gold"]["f1"] < 10)  # flagged exactly when weak
    bad = CliRunner().invoke(app, ["sdqa", "goldp", "--data-dir", str(tmp_path), "--lang", "kor", "--view", "nope"])
    assert bad.exit_code != 0 and "nope" in bad.stderr


# ---- issue 36 item 5: the paper's table of the same split

def test_compare_paper_on_test_uses_table_9_and_notes_bengali(tmp_path):
    for lang in ("kor", "ben"):
        write_layout(tmp_path, lang, split="test")
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "all", "--split", "test",
                                   "--compare-paper"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "Seed 001 Table 9 (test) vs ours" in res.stdout and "Table 2 (dev)" not in res.stdout
    assert "26.13" in res.stdout and "27.95" not in res.stdout  # Table 9's KOR-C, not Table 2's
    assert "Bengali is a known deviation" in res.stderr
    js = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "kor", "--split", "test",
                                  "--view", "paper", "--format", "json"])
    assert {(r["label"], r["paper"]) for r in json.loads(js.stdout)} == {("KOR-C", 26.13), ("KOR-SE", 26.45)}


def test_compare_paper_on_an_unpublished_split_says_why(tmp_path):
    write_layout(tmp_path, "kor", split="train")
    res = CliRunner().invoke(app, ["sdqa", "wer", "--data-dir", str(tmp_path), "--lang", "kor", "--split", "train",
                                   "--compare-paper"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "nothing to compare for split 'train'" in res.stderr and "vs ours" not in res.stdout


def test_table_9_is_packaged_with_every_printed_cell():
    from dialectbench.sdqa.languages import paper_table

    t9 = paper_table("test")
    assert len(t9) == 38 and t9.groupby("lang").size().to_dict() == {"ara": 7, "ben": 4, "eng": 21, "kor": 2,
                                                                      "swa": 4}
    assert set(zip(t9["lang"], t9["code"])) <= set(DIALECTS)
    eng = t9[(t9["lang"] == "eng") & (t9["row"] == "localized")]
    assert round(eng["paper"].mean(), 2) == 9.66  # Table 9's own avg_L for en-VAR
    with pytest.raises(SDQAError, match="dev .* and test"):
        paper_table("train")
