"""ASR backends behind one interface: `transcribe(audio paths) -> texts` (batched, progress on stderr).

- `pocketsphinx`: the PyPI package's bundled US English model, offline on CPU.
- `whisper`: transformers `WhisperForConditionalGeneration` + processor from a local folder (or a hub id
  when downloads are allowed); the language is forced from the SD-QA language / registry.
- `transcripts`: transcripts produced elsewhere (the released SD-QA ones), looked up by example id.

Audio is read with soundfile and resampled to 16 kHz mono; an unreadable, missing or empty file is
reported by name on stderr and skipped (its text is None), never failing the batch."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import gcd
from pathlib import Path

import numpy as np

from dialectbench.extras import require
from dialectbench.sdqa.dialects import LANGUAGES, SDQAError

SAMPLE_RATE = 16_000


class AudioError(SDQAError):
    """An audio file that cannot be used (missing, unreadable, empty)."""


def load_audio(path: Path | str, target_sr: int = SAMPLE_RATE) -> np.ndarray:
    """Float32 mono samples at `target_sr`; raises AudioError naming the file."""
    import soundfile as sf
    from scipy.signal import resample_poly

    p = Path(path)
    if not p.is_file():
        raise AudioError(f"{p}: audio file not found")
    try:
        data, sr = sf.read(str(p), dtype="float32", always_2d=True)
    except (RuntimeError, OSError, ValueError, TypeError) as exc:  # LibsndfileError is a RuntimeError
        raise AudioError(f"{p}: unreadable audio ({exc})") from None
    if data.size == 0:
        raise AudioError(f"{p}: empty audio (0 samples)")
    mono = data.mean(axis=1)
    if sr != target_sr:
        g = gcd(int(sr), target_sr)
        mono = resample_poly(mono, target_sr // g, int(sr) // g).astype(np.float32)
    return mono


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr)


@dataclass
class ASRBase:
    """Shared batching, audio loading and error reporting; subclasses implement `_decode`."""

    batch_size: int = 8
    progress: bool = True
    skipped: list[str] = field(default_factory=list, init=False)
    name = "asr"

    def _decode(self, audios: list[np.ndarray]) -> list[str]:
        raise NotImplementedError

    def _load(self, path: Path) -> np.ndarray | None:
        try:
            return load_audio(path)
        except AudioError as exc:
            _warn(f"skipped: {exc}")
            self.skipped.append(str(path))
            return None

    def transcribe(self, paths: Sequence[Path | str]) -> list[str | None]:
        paths = [Path(p) for p in paths]
        out: list[str | None] = [None] * len(paths)
        with _progress(self.progress, len(paths), f"{self.name}: transcribing") as advance:
            for start in range(0, len(paths), self.batch_size):
                idx = list(range(start, min(start + self.batch_size, len(paths))))
                loaded = [(i, self._load(paths[i])) for i in idx]
                good = [(i, a) for i, a in loaded if a is not None]
                if good:
                    for (i, _), text in zip(good, self._decode([a for _, a in good])):
                        out[i] = text.strip()
                advance(len(idx))
        return out


class _progress:
    """A rich progress bar on stderr (a no-op when disabled)."""

    def __init__(self, enabled: bool, total: int, label: str):
        self.enabled, self.total, self.label = enabled and total > 0, total, label

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda n: None
        from rich.console import Console
        from rich.progress import Progress

        self._p = Progress(console=Console(stderr=True), transient=True)
        self._p.start()
        task = self._p.add_task(self.label, total=self.total)
        return lambda n: self._p.advance(task, n)

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self._p.stop()


@dataclass
class PocketSphinxASR(ASRBase):
    """CMU PocketSphinx with the package's bundled en-US acoustic model, language model and dictionary."""

    lm: Path | str | None = None  # an ARPA language model to use instead of the bundled general one
    name = "pocketsphinx"

    def __post_init__(self):
        require("sdqa asr --backend pocketsphinx", "pocketsphinx", "soundfile")
        from pocketsphinx import Decoder

        kw = {"lm": str(self.lm)} if self.lm else {}
        self._decoder = Decoder(loglevel="FATAL", **kw)

    def _decode(self, audios: list[np.ndarray]) -> list[str]:
        texts = []
        for audio in audios:
            pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
            self._decoder.start_utt()
            self._decoder.process_raw(pcm, full_utt=True)
            self._decoder.end_utt()
            hyp = self._decoder.hyp()
            texts.append(hyp.hypstr if hyp is not None else "")
        return texts


def whisper_language(lang: str) -> str:
    """Whisper language code for an SD-QA language code (eng -> en) or a registry variety name."""
    key = lang.strip().lower()
    if key in LANGUAGES:
        return LANGUAGES[key][1]
    if len(key) == 2:
        return key
    try:  # a variety name: the registry knows its language (glottolog name)
        from dialectbench.varieties import registry

        variety = registry().get(lang)
        name = (variety.glottolog_name or variety.cluster or "").split()[0].lower()
    except (ImportError, LookupError, ValueError, AttributeError) as exc:
        raise SDQAError(f"cannot map {lang!r} to a Whisper language: {exc}") from None
    for _, iso1, full in LANGUAGES.values():
        if name == full:
            return iso1
    return name  # Whisper also accepts full language names ("english")


@dataclass
class WhisperASR(ASRBase):
    """transformers Whisper; `model` is a local folder, or a hub id when `allow_download` is set."""

    model: str = ""
    language: str | None = "eng"
    device: str = "cpu"
    max_new_tokens: int = 64
    allow_download: bool = False
    name = "whisper"

    def __post_init__(self):
        require("sdqa asr --backend whisper", "transformers", "soundfile")
        from transformers import WhisperForConditionalGeneration, WhisperProcessor

        if not self.model:
            raise SDQAError("whisper needs --model-path (a local folder with the model and processor)")
        local = Path(self.model).is_dir()
        if not local and not self.allow_download:
            raise SDQAError(f"whisper model {self.model!r} is not a local folder; pass a folder saved with "
                            "save_pretrained, or allow downloads (--allow-download) to fetch it from the hub")
        kw = {"local_files_only": not self.allow_download}
        self._processor = WhisperProcessor.from_pretrained(self.model, **kw)
        self._model = WhisperForConditionalGeneration.from_pretrained(self.model, **kw).to(self.device).eval()

    def _generate_kwargs(self) -> dict:
        # the decoder prompt (start, language, task, no-timestamps) shares max_target_positions
        kw = {"max_new_tokens": min(self.max_new_tokens, self._model.config.max_target_positions - 4)}
        lang_ids = getattr(self._model.generation_config, "lang_to_id", None)
        if self.language and lang_ids:  # English-only checkpoints have no language tokens
            kw.update(language=whisper_language(self.language), task="transcribe")
        return kw

    def _decode(self, audios: list[np.ndarray]) -> list[str]:
        import torch

        feats = self._processor.feature_extractor(audios, sampling_rate=SAMPLE_RATE, return_tensors="pt")
        with torch.no_grad():
            ids = self._model.generate(feats.input_features.to(self.device), **self._generate_kwargs())
        return self._processor.tokenizer.batch_decode(ids, skip_special_tokens=True)


@dataclass
class TranscriptsASR(ASRBase):
    """Transcripts already produced: the audio file's stem is the example id."""

    table: Mapping[str, str] = field(default_factory=dict)
    name = "transcripts"

    def transcribe(self, paths: Sequence[Path | str]) -> list[str | None]:
        out = []
        for p in paths:
            stem = Path(p).stem
            if stem not in self.table:
                _warn(f"skipped: {p}: no transcript for example id {stem!r}")
                self.skipped.append(str(p))
                out.append(None)
            else:
                out.append(self.table[stem])
        return out


BACKENDS = ("pocketsphinx", "whisper", "transcripts")


def make_backend(name: str, **kw) -> ASRBase:
    if name == "pocketsphinx":
        return PocketSphinxASR(batch_size=kw.get("batch_size", 8), progress=kw.get("progress", True),
                               lm=kw.get("lm"))
    if name == "whisper":
        return WhisperASR(batch_size=kw.get("batch_size", 8), progress=kw.get("progress", True),
                          model=kw.get("model_path") or "", language=kw.get("language"),
                          device=kw.get("device", "cpu"), allow_download=kw.get("allow_download", False))
    if name == "transcripts":
        return TranscriptsASR(table=kw.get("table") or {})
    raise SDQAError(f"unknown ASR backend {name!r}; choose from {', '.join(BACKENDS)}")


@dataclass(frozen=True)
class AudioItem:
    lang: str
    dialect: str
    example_id: str
    path: Path


def discover_audio(root: Path | str, lang: str | None = None,
                   dialects: Sequence[str] | None = None) -> list[AudioItem]:
    """Audio files in a folder laid out as SD-QA: <lang>/<dialect>/**/<example id>.wav. A dialect's
    metadata.csv that lists a file which is not there is reported by name (the file is skipped)."""
    root = Path(root)
    if not root.is_dir():
        raise SDQAError(f"{root}: audio folder not found")
    lang_dirs = [root / lang] if lang and (root / lang).is_dir() else (
        [root] if lang else sorted(p for p in root.iterdir() if p.is_dir()))
    ddirs = [d for ldir in lang_dirs for d in sorted(p for p in ldir.iterdir() if p.is_dir())]
    if dialects:
        from dialectbench.sdqa.dialects import check_dialects

        check_dialects(list(dialects), sorted({d.name for d in ddirs}))
    items = []
    for ddir in ddirs:
        if dialects and ddir.name not in dialects:
            continue
        code = lang or ddir.parent.name
        found = {p.stem: p for p in sorted(ddir.rglob("*")) if p.suffix.lower() in (".wav", ".flac", ".ogg")}
        _report_unlisted(ddir, found)
        items += [AudioItem(code, ddir.name, stem, p) for stem, p in found.items()]
    return items


def _report_unlisted(ddir: Path, found: dict[str, Path]) -> None:
    meta = ddir / "metadata.csv"
    if not meta.is_file():
        return
    with meta.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            qid = (row.get("example_id") or "").strip()
            if qid and qid not in found:
                _warn(f"skipped: {ddir / (Path(row.get('audio_file') or qid).name)}: audio file not found "
                      f"(listed in {meta})")


def transcribe_folder(backend: ASRBase, root: Path | str, *, lang: str | None = None,
                      dialects: Sequence[str] | None = None, model_name: str | None = None) -> list[dict]:
    """Transcribe every audio file under `root`; rows (lang, dialect, model, example_id, transcript,
    audio_file). Skipped files are left out (and were reported)."""
    items = discover_audio(root, lang, dialects)
    texts = backend.transcribe([i.path for i in items])
    name = model_name or backend.name
    return [{"lang": i.lang, "dialect": i.dialect, "model": name, "example_id": i.example_id,
             "transcript": t, "audio_file": str(i.path)} for i, t in zip(items, texts) if t is not None]


def read_transcript_rows(path: Path | str, *, need_dialect: bool = True) -> list[dict]:
    """Rows written by `sdqa asr --output` (columns dialect, model, example_id, transcript; only the last
    two when `need_dialect` is False)."""
    p = Path(path)
    if not p.is_file():
        raise SDQAError(f"{p}: transcripts file not found")
    with p.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        need = {"dialect", "model", "example_id", "transcript"} if need_dialect else {"example_id", "transcript"}
        missing = need - set(reader.fieldnames or [])
        if missing:
            raise SDQAError(f"{p}:1: missing column(s) {', '.join(sorted(missing))}")
        return [dict(r) for r in reader]
