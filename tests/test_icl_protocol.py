"""Issue 29: icl on the data the mirror has (where demonstrations come from, held out when they share a test
split), --rescore with no server and no request, the paper's prompt as sent, lm-evaluation-harness's knobs
(--num-fewshot, --gen-kwargs, --model-args), acc/acc_norm, bootstrap stderr and samples.jsonl. Against the
fake OpenAI-compatible server of test_llm_backend (offline, fast) and the bundled sample suite."""

from __future__ import annotations

import json

import pytest
from test_llm_backend import FakeServer
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.data import open_source
from dialectbench.data.examples import QAExample
from dialectbench.runner import PlanError, Store, run
from dialectbench.runner.plan import build_plan

PAPER_SA = ("In this task, you are given a piece of text. Your task is to classify the sentiment of the text "
            "based on its content.\n\nSentence: ")


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.close()


def _icl_plan(source=None, **kw):
    return build_plan(source or open_source(), model="llm", settings=["icl"], supports_icl=True, **kw)


def _extra(db, key):
    return json.loads(db.conn.execute("SELECT extra FROM scores WHERE job_key = ?", (key,)).fetchone()[0])


def test_sa_demonstrations_come_from_the_variety_by_default_and_fewshot_from_chooses():
    by_variety = {j.variety: g.training for g in _icl_plan(tasks=["sa"]).groups for j in g.jobs}
    assert set(by_variety) == {"standard arabic", "egyptian arabic", "tunisian arabic (r:casual)", "english",
                               "nigerian english"}
    for variety, training in by_variety.items():
        assert training.members == (variety,) and training.fewshot == "variety"
    assert by_variety["standard arabic"].split == "train" and by_variety["standard arabic"].demos == "demos:variety"
    # egyptian arabic has only a test split here: its demonstrations come from it, held out of scoring
    assert by_variety["egyptian arabic"].split == "test"
    assert by_variety["egyptian arabic"].demos == "demos:variety+test-held-out"

    cluster = _icl_plan(tasks=["sa"], fewshot="cluster")
    arabic = {j.variety: g.training.members for g in cluster.groups for j in g.jobs}
    assert set(arabic.values()) == {("standard arabic",)}  # Table 9's representative for every Arabic set
    assert {s.variety for s in cluster.skips if s.setting == "icl"} == {"english", "nigerian english"}
    assert all("no representative" in s.reason for s in cluster.skips if s.setting == "icl")

    english = _icl_plan(tasks=["sa"], fewshot="english")
    assert [g.training.members for g in english.groups] == [("english",)]
    keys = {_icl_plan(tasks=["sa"], fewshot=f).jobs[0].key for f in ("variety", "english")}
    assert len(keys) == 2  # the demonstration source is part of the job key
    with pytest.raises(PlanError, match="Did you mean: cluster"):
        _icl_plan(tasks=["sa"], fewshot="clustr")


def test_every_task_the_paper_ran_with_icl_plans_on_the_real_mirror(shared_data):
    plan = _icl_plan(open_source(shared_data), tasks=["sa", "eqa"])
    planned = {(j.task, j.variety) for j in plan.jobs}
    mirror = open_source(shared_data)
    assert planned == {(t, v) for t in ("sa", "eqa") for v in mirror.varieties(t)}  # all of them, no skip
    sa = [g.training for g in plan.groups if g.task == "sa"]
    assert all(t.split == "train" and t.fewshot == "variety" for t in sa)
    eqa = [g.training for g in plan.groups if g.task == "eqa"]
    # SD-QA ships only its dev files (read as test): English demonstrations from the US English file, held out
    assert [(t.members, t.split, t.fewshot) for t in eqa] == [(("southeast american english",), "test", "english")]


def test_demonstrations_from_a_test_split_are_held_out_of_scoring(server, tmp_path):
    from dialectbench.runner.local_executor import EmptySplit, _without_demos

    passage = "The river is long."
    demo = QAExample("en-1-usa", passage, "How long is it?", ("long",), (13,))
    tests = [QAExample("en-1-ind", passage, "how long is it", ("long",), (13,)),  # the same passage: its answer shown
             QAExample("en-2-ind", "Another passage.", "What?", ("x",), (0,))]
    kept, dropped = _without_demos(tests, [demo])
    assert [t.example_id for t in kept] == ["en-2-ind"] and dropped == 1
    with pytest.raises(EmptySplit):
        _without_demos(tests[:1], [demo])

    result = run(tasks=["sa"], varieties=["egyptian arabic"], settings=["icl"], model=f"llm:{server.url}",
                 store=tmp_path / "s.db", backend_options={"mode": "generate", "model": "m"})
    assert result.counts["done"] == 1
    test = open_source().load("sa", "egyptian arabic", "test")
    with Store(result.store) as db:
        row = db.scores(detail=True)[0]
        extra = _extra(db, row["job_key"])
        scored = {p["example_id"] for p in db.predictions(row["job_key"])}
    prompt = server.chats()[0]["body"]["messages"][-1]["content"]
    demos = [block.split("\n", 1)[0] for block in prompt.split("Sentence: ")[1:-1]]
    assert len(demos) == 4
    assert extra["demos_held_out"] >= 4 and row["n"] == len(test) - extra["demos_held_out"]
    assert not {ex.example_id for ex in test if ex.text in demos} & scored  # a demonstration is never scored
    assert row["signature"].startswith("icl|openai-server|mode:generate|k:4|chat:on|demos:variety+test-held-out|")


def test_rescore_asks_nothing_and_keeps_the_job_key(server, tmp_path):
    from dialectbench.backends.llm.cache import cached_requests

    server.logprobs = True  # auto mode: the log-probability probe decides loglikelihood
    server.logprob = lambda token: 0.0 if token.strip() == "negative" else -2.0
    store = tmp_path / "s.db"
    args = {"tasks": ["sa"], "settings": ["icl"], "model": f"llm:{server.url}", "store": store}
    first = run(**args)  # no model id given: GET /models
    assert first.counts["done"] > 0
    with Store(store) as db:
        before = {r["job_key"]: (r["score"], r["signature"]) for r in db.scores(detail=True)}
    assert {c["endpoint"] for c in cached_requests(store)} == {"models", "probe", "loglikelihood"}
    url = server.url
    server.close()  # no server: the model id and the probe come from the store
    again = run(**{**args, "model": f"llm:{url}"}, rerun=True, backend_options={"cache_only": True})
    assert again.job_keys == first.job_keys and again.counts["done"] == len(before)
    with Store(store) as db:
        assert {r["job_key"]: (r["score"], r["signature"]) for r in db.scores(detail=True)} == before
        assert len(db.jobs()) == len(before)  # rescored in place, not a second job
    from dialectbench.runner import RunError

    with pytest.raises(RunError, match="does not say which model"):  # a store that never saw this server
        run(**{**args, "model": f"llm:{url}", "store": tmp_path / "other.db"}, rerun=True,
            backend_options={"cache_only": True})


def test_the_prompt_is_the_papers_and_the_template_and_system_prompt_are_options(server, tmp_path):
    backend_args = {"mode": "generate", "model": "m", "log_samples": True}
    one = {"tasks": ["sa"], "varieties": ["standard arabic"], "settings": ["icl"], "model": f"llm:{server.url}"}
    run(**one, store=tmp_path / "a.db", backend_options=backend_args)
    messages = server.chats()[0]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user"] and messages[0]["content"].startswith(PAPER_SA)
    assert "Answer with one of" not in messages[0]["content"] and messages[0]["content"].endswith("\n\nLabel:")
    with Store(tmp_path / "a.db") as db:
        key = db.scores(detail=True)[0]["job_key"]
        assert "the server applies the model's chat template" in _extra(db, key)["prompt_format"]

    server.requests.clear()
    run(**one, store=tmp_path / "b.db", backend_options={**backend_args, "chat_template": False,
                                                          "system_prompt": "You label tweets."})
    assert not server.chats()
    sent = [r["body"]["prompt"] for r in server.requests if r["path"] == "/v1/completions"]
    assert sent and all(p.startswith("You label tweets.\n\n" + PAPER_SA) for p in sent)
    with Store(tmp_path / "b.db") as db:
        samples = db.samples()
        row = db.scores(detail=True)[0]
        assert _extra(db, row["job_key"])["prompt_format"] == "plain text to POST /completions: no chat template"
    assert {s["prompt"] for s in samples} <= set(sent)  # the sample is the text exactly as sent
    assert "|chat:off|system:" in row["signature"]

    server.requests.clear()
    run(**one, store=tmp_path / "c.db", backend_options={**backend_args, "system_prompt": "You label tweets."})
    assert [m["role"] for m in server.chats()[0]["body"]["messages"]] == ["system", "user"]


def test_gen_kwargs_reach_the_server_and_cut_the_reply(server, tmp_path):
    server.reply = lambda prompt: "negative\nSentence: more text"
    result = CliRunner().invoke(app, ["run", "--tasks", "sa", "--varieties", "standard arabic", "--settings", "icl",
                                      "--model", f"llm:{server.url}", "--mode", "generate", "--num-fewshot", "2",
                                      "--gen-kwargs", "max_gen_toks=7,temperature=0.5,until=\\n",
                                      "--store", str(tmp_path / "s.db"), "--no-report"],
                                env={"DIALECTBENCH_LLM_MODEL": "m", "COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    body = server.chats()[0]["body"]
    assert body["max_tokens"] == 7 and body["temperature"] == 0.5 and body["stop"] == ["\n"]
    assert body["seed"] == 0  # sampling is seeded with the run's seed
    assert body["messages"][-1]["content"].count("Label: ") == 2  # --num-fewshot 2
    with Store(tmp_path / "s.db") as db:
        row = db.scores(detail=True)[0]
    assert "|k:2|chat:on|temperature:0.5|seed:0|" in row["signature"]
    with Store(tmp_path / "s.db") as db:
        assert {p["prediction"] for p in db.predictions(row["job_key"])} == {"negative"}

    bad = CliRunner().invoke(app, ["run", "--tasks", "sa", "--model", f"llm:{server.url}", "--gen-kwargs",
                                   "temprature=1", "--store", str(tmp_path / "t.db")], env={"COLUMNS": "200"})
    assert bad.exit_code != 0 and "Did you mean: temperature?" in bad.output and "Traceback" not in bad.output


def test_model_args_batch_size_and_device_for_hf_causal():
    from dialectbench.runner.options import OptionError, RunOptions, icl_options

    assert RunOptions(batch_size=4, device="cpu").backend_options("hf-causal:org/m") == {"device": "cpu",
                                                                                        "batch_size": 4}
    with pytest.raises(OptionError, match="--epochs"):
        RunOptions(epochs=2).backend_options("hf-causal:org/m")
    args = icl_options("hf-causal:org/m", model_args="dtype=bfloat16,revision=v1")
    assert args == {"dtype": "bfloat16", "revision": "v1"}  # trust_remote_code stays off unless given
    assert icl_options("hf-causal:org/m", model_args="trust_remote_code=true") == {"trust_remote_code": True}
    with pytest.raises(OptionError, match="Did you mean: revision"):
        icl_options("hf-causal:org/m", model_args="revison=v1")
    with pytest.raises(OptionError, match="icl backends"):
        icl_options("baseline", model_args="dtype=float32")
    # any other backend that declares options takes them (a value read as bool/int/float/text)
    assert icl_options("mbert", model_args="precision=bf16,verbose=true") == {"precision": "bf16", "verbose": True}
    with pytest.raises(OptionError, match="--gen-kwargs apply to the icl backends"):
        icl_options("mbert", gen_kwargs="temperature=0")


def test_loglikelihood_scores_carry_acc_norm_stderr_and_samples_jsonl(server, tmp_path):
    from dialectbench.runner.results_file import write_results

    server.logprobs = True
    server.logprob = lambda token: {"negative": -0.5, "positive": -0.6}.get(token.strip(), -1.0)
    store = tmp_path / "s.db"
    run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=store,
                 backend_options={"model": "m", "log_samples": True}, fewshot="english")
    with Store(store) as db:
        rows = db.scores(detail=True)
        extras = {r["job_key"]: _extra(db, r["job_key"]) for r in rows}
    source = open_source()
    for row in rows:
        extra = extras[row["job_key"]]
        test = source.load("sa", row["variety"], "test")
        share = 100.0 * sum(ex.label == "negative" for ex in test) / len(test)
        assert extra["acc"] == pytest.approx(row["score"]) == pytest.approx(share)  # summed: always negative
        # per byte: " negative" -0.5/9 = -0.056 beats " positive" -0.6/9 = -0.067 too
        assert extra["acc_norm"] == pytest.approx(share)
        assert extra["stderr"] > 0 and extra["stderr_resamples"] == 1000
    rerun = run(tasks=["sa"], settings=["icl"], model=f"llm:{server.url}", store=store, rerun=True,
                backend_options={"model": "m", "log_samples": True}, fewshot="english")
    with Store(store) as db:  # seeded: the same stderr again
        assert {r["job_key"]: _extra(db, r["job_key"])["stderr"] for r in db.scores(detail=True)} == \
            {k: e["stderr"] for k, e in extras.items()}
    path = write_results(store, tmp_path / "out", rerun.run_id, rerun.job_keys)
    lines = [json.loads(line) for line in (path.parent / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert json.loads(path.read_text(encoding="utf-8"))["samples_file"] == "samples.jsonl"
    assert len(lines) == sum(r["n"] for r in rows)
    golds = {(row["variety"], i): ex.label for row in rows
             for i, ex in enumerate(source.load("sa", row["variety"], "test"))}
    for line in lines:
        assert line["gold"] == golds[line["variety"], line["idx"]] and line["prediction"] == "negative"
        assert line["prompt"].startswith(PAPER_SA) and set(line["response"]) == {"negative", "positive"}
