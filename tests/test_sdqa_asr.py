"""ASR backends: audio loading/resampling, bad files skipped by name, PocketSphinx on real (synthesized)
audio, Whisper with a tiny random model built offline, the transcripts backend, and `sdqa asr`."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from dialectbench.cli.main import app
from dialectbench.sdqa import (
    AudioError,
    SDQAError,
    TranscriptsASR,
    UnknownDialectError,
    discover_audio,
    load_audio,
    make_backend,
    transcribe_folder,
    whisper_language,
)


def _tone(path, sr=8000, seconds=1.0, channels=2):
    t = np.arange(int(sr * seconds)) / sr
    x = 0.3 * np.sin(2 * np.pi * 440 * t)
    sf.write(path, np.stack([x] * channels, axis=1) if channels > 1 else x, sr)


def test_load_audio_resamples_to_16k_mono(tmp_path):
    _tone(tmp_path / "a.wav", sr=8000, seconds=0.5, channels=2)
    x = load_audio(tmp_path / "a.wav")
    assert x.ndim == 1 and x.dtype == np.float32 and len(x) == 8000


def test_bad_audio_files_are_named(tmp_path):
    (tmp_path / "bad.wav").write_bytes(b"not audio at all")
    sf.write(tmp_path / "empty.wav", np.zeros(0), 16000)
    with pytest.raises(AudioError, match="missing.wav: audio file not found"):
        load_audio(tmp_path / "missing.wav")
    with pytest.raises(AudioError, match="bad.wav: unreadable audio"):
        load_audio(tmp_path / "bad.wav")
    with pytest.raises(AudioError, match="empty.wav: empty audio"):
        load_audio(tmp_path / "empty.wav")


def _layout(tmp_path):
    d = tmp_path / "eng" / "aus"
    d.mkdir(parents=True)
    _tone(d / "101.wav")
    (d / "102.wav").write_bytes(b"garbage")
    (d / "metadata.csv").write_text("example_id,audio_file\n101,x/101.wav\n102,x/102.wav\n103,x/103.wav\n")
    return tmp_path


def test_transcribe_folder_skips_bad_and_reports_missing(tmp_path, capsys):
    root = _layout(tmp_path)
    asr = TranscriptsASR(table={"101": "hello there", "102": "x"})
    rows = transcribe_folder(asr, root, lang="eng", model_name="mine")
    assert [(r["dialect"], r["example_id"], r["transcript"]) for r in rows] == [("aus", "101", "hello there"),
                                                                               ("aus", "102", "x")]
    assert "103.wav: audio file not found" in capsys.readouterr().err
    with pytest.raises(UnknownDialectError, match="aus"):
        discover_audio(root, "eng", ["auz"])
    with pytest.raises(SDQAError, match="audio folder not found"):
        discover_audio(tmp_path / "nope")


def test_pocketsphinx_batch_survives_a_bad_file(tmp_path, capsys):
    wav = tmp_path / "q.wav"
    if shutil.which("espeak-ng"):
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(wav), "what is the capital of kenya"], check=True)
    else:
        _tone(wav, sr=16000, seconds=1.0, channels=1)
    asr = make_backend("pocketsphinx", progress=False)
    out = asr.transcribe([wav, tmp_path / "gone.wav"])
    assert isinstance(out[0], str) and out[1] is None
    assert "gone.wav" in capsys.readouterr().err and asr.skipped == [str(tmp_path / "gone.wav")]


@pytest.fixture(scope="module")
def tiny_whisper(tmp_path_factory):
    """A randomly initialised Whisper with a byte-level tokenizer built from scratch (no downloads)."""
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import (
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
        WhisperProcessor,
        WhisperTokenizer,
    )

    vocab = {c: i for i, c in enumerate(sorted(ByteLevel.alphabet()))}
    specials = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|sw|>", "<|translate|>", "<|transcribe|>",
                "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]
    for s in specials:
        vocab[s] = len(vocab)
    tok = WhisperTokenizer(vocab=vocab, merges=[], additional_special_tokens=specials[1:])
    ids = {s: tok.convert_tokens_to_ids(s) for s in specials}
    eot = ids["<|endoftext|>"]
    cfg = WhisperConfig(vocab_size=len(tok), d_model=16, encoder_layers=1, decoder_layers=1,
                        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                        decoder_ffn_dim=32, max_target_positions=32, max_source_positions=1500, num_mel_bins=80,
                        pad_token_id=eot, bos_token_id=eot, eos_token_id=eot,
                        decoder_start_token_id=ids["<|startoftranscript|>"])
    model = WhisperForConditionalGeneration(cfg)
    gc = model.generation_config
    gc._from_model_config = False  # keep the Whisper-specific fields below when reloading
    gc.lang_to_id = {"<|en|>": ids["<|en|>"], "<|sw|>": ids["<|sw|>"]}
    gc.task_to_id = {"transcribe": ids["<|transcribe|>"], "translate": ids["<|translate|>"]}
    gc.no_timestamps_token_id = ids["<|notimestamps|>"]
    gc.is_multilingual = True
    gc.forced_decoder_ids = gc.begin_suppress_tokens = gc.suppress_tokens = None
    folder = tmp_path_factory.mktemp("whisper")
    model.save_pretrained(folder)
    WhisperProcessor(WhisperFeatureExtractor(), tok).save_pretrained(folder)
    return folder, ids


def test_whisper_tiny_random_model_forces_language(tiny_whisper, tmp_path):
    folder, ids = tiny_whisper
    _tone(tmp_path / "a.wav", sr=22050, seconds=0.5)
    asr = make_backend("whisper", model_path=str(folder), language="swa", progress=False, batch_size=2)
    assert asr._generate_kwargs()["language"] == "sw"
    seen = []  # the decoder's first input is the prompt: start, language, task tokens
    hook = asr._model.model.decoder.register_forward_pre_hook(
        lambda mod, args, kwargs: seen.append(kwargs.get("input_ids")), with_kwargs=True)
    out = asr.transcribe([tmp_path / "a.wav", tmp_path / "nope.wav"])
    hook.remove()
    assert isinstance(out[0], str) and out[1] is None
    prompt = seen[0][0].tolist()
    assert ids["<|sw|>"] in prompt and ids["<|transcribe|>"] in prompt and ids["<|en|>"] not in prompt


def test_whisper_refuses_remote_ids_offline():
    with pytest.raises(SDQAError, match="not a local folder"):
        make_backend("whisper", model_path="openai/whisper-tiny")


def test_whisper_language_mapping():
    assert whisper_language("eng") == "en" and whisper_language("swa") == "sw" and whisper_language("ko") == "ko"


def test_cli_asr_transcripts_backend(tmp_path):
    root = _layout(tmp_path / "audio")
    table = tmp_path / "t.csv"
    table.write_text("example_id,transcript\n101,hi there\n")
    out = tmp_path / "out.csv"
    res = CliRunner().invoke(app, ["sdqa", "asr", str(root), "--backend", "transcripts", "--transcripts",
                                   str(table), "--lang", "eng", "--output", str(out), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "101,hi there" in res.stdout and "102" not in res.stdout
    assert out.read_text().splitlines()[1].startswith("eng,aus,transcripts,101,hi there")
    bad = CliRunner().invoke(app, ["sdqa", "asr", str(tmp_path / "missing")])
    assert bad.exit_code != 0 and "audio folder not found" in bad.output
