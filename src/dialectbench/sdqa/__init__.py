"""Spoken dialectal QA (SD-QA): ASR backends, WER by dialect with gender/age breakdowns,
generalized-entropy unfairness, the TyDi-QA primary tasks on transcribed questions, and an offline demo."""

from dialectbench.sdqa.asr import (
                                   AudioError,
                                   PocketSphinxASR,
                                   TranscriptsASR,
                                   WhisperASR,
                                   discover_audio,
                                   load_audio,
                                   make_backend,
                                   read_transcript_rows,
                                   transcribe_folder,
                                   whisper_language,
)
from dialectbench.sdqa.corpus import SDQACorpus, attach_transcripts, load_sdqa
from dialectbench.sdqa.dialects import DIALECTS, SDQAError, UnknownDialectError
from dialectbench.sdqa.fairness import ge_decomposition
from dialectbench.sdqa.normalize import NORMALIZATIONS, Normalization, get_normalization
from dialectbench.sdqa.qa import (
                                   Annotation,
                                   EmbeddingRanker,
                                   LexicalRanker,
                                   PipelineQA,
                                   Prediction,
                                   TydiExample,
                                   read_tydi,
                                   score_minimal,
                                   score_passage,
                                   tydi_f1,
)
from dialectbench.sdqa.wer import WerOptions, WerReport, wer_report

__all__ = [
                                   "DIALECTS",
                                   "NORMALIZATIONS",
                                   "Annotation",
                                   "AudioError",
                                   "EmbeddingRanker",
                                   "LexicalRanker",
                                   "Normalization",
                                   "PipelineQA",
                                   "PocketSphinxASR",
                                   "Prediction",
                                   "SDQACorpus",
                                   "SDQAError",
                                   "TranscriptsASR",
                                   "TydiExample",
                                   "UnknownDialectError",
                                   "WerOptions",
                                   "WerReport",
                                   "WhisperASR",
                                   "attach_transcripts",
                                   "discover_audio",
                                   "ge_decomposition",
                                   "get_normalization",
                                   "load_audio",
                                   "load_sdqa",
                                   "make_backend",
                                   "read_transcript_rows",
                                   "read_tydi",
                                   "score_minimal",
                                   "score_passage",
                                   "transcribe_folder",
                                   "tydi_f1",
                                   "wer_report",
                                   "whisper_language",
]
