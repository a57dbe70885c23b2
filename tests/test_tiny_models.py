"""Tiny test checkpoints are the same in every process, so learnability tests cannot pass or fail by
the luck of a hash seed (the tokenizers trainers break frequency ties in hash order)."""

from __future__ import annotations

import os
import subprocess
import sys

from dialectbench.backends.hf.tiny import KINDS

SCRIPT = """
import hashlib, tempfile, pathlib
from dialectbench.backends.hf import synthetic
from dialectbench.backends.hf.tiny import KINDS, make_tiny_model
for kind in KINDS:
    folder = make_tiny_model(pathlib.Path(tempfile.mkdtemp()) / kind, kind, synthetic.corpus(200), vocab_size=60)
    print(kind, hashlib.sha256((folder / "tokenizer.json").read_bytes()).hexdigest())
"""


def _digests(hash_seed: str) -> dict[str, str]:
    """Every kind's tokenizer.json digest, built in one fresh process under `hash_seed`."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600,
                         check=True)
    return dict(line.split() for line in out.stdout.splitlines() if line.split()[:1] and line.split()[0] in KINDS)


def test_tokenizer_is_identical_across_processes():
    first, second = _digests("1"), _digests("2")
    assert set(first) == set(KINDS)
    differ = [kind for kind in KINDS if first[kind] != second.get(kind)]
    assert not differ, f"the tokenizer differs between two processes: {', '.join(differ)}"


def test_sub_word_pieces_split_synthetic_words(tmp_path):
    from transformers import AutoTokenizer

    from dialectbench.backends.hf import synthetic
    from dialectbench.backends.hf.tiny import make_tiny_model

    tok = AutoTokenizer.from_pretrained(make_tiny_model(tmp_path / "b", "bert", synthetic.corpus(200), vocab_size=60))
    # the synthetic tasks label words by their syllables: the tokenizer must expose them as pieces
    assert tok.tokenize("bakomi tuse") == ["ba", "##ko", "##mi", "tu", "##se"]
