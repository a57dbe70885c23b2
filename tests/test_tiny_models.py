"""Tiny test checkpoints are the same in every process, so learnability tests cannot pass or fail by
the luck of a hash seed (the tokenizers trainers break frequency ties in hash order)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dialectbench.backends.hf.tiny import KINDS

SCRIPT = """
import hashlib, sys, tempfile, pathlib
from dialectbench.backends.hf import synthetic
from dialectbench.backends.hf.tiny import make_tiny_model
folder = make_tiny_model(pathlib.Path(tempfile.mkdtemp()) / "m", sys.argv[1], synthetic.corpus(200), vocab_size=60)
print(hashlib.sha256((folder / "tokenizer.json").read_bytes()).hexdigest())
"""


@pytest.mark.parametrize("kind", KINDS)
def test_tokenizer_is_identical_across_processes(kind):
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", SCRIPT, kind], env=env, capture_output=True, text=True,
                             timeout=300, check=True)
        digests.add(out.stdout.strip().splitlines()[-1])
    assert len(digests) == 1, f"{kind}: the tokenizer differs between two processes"


def test_sub_word_pieces_split_synthetic_words(tmp_path):
    from transformers import AutoTokenizer

    from dialectbench.backends.hf import synthetic
    from dialectbench.backends.hf.tiny import make_tiny_model

    tok = AutoTokenizer.from_pretrained(make_tiny_model(tmp_path / "b", "bert", synthetic.corpus(200), vocab_size=60))
    # the synthetic tasks label words by their syllables: the tokenizer must expose them as pieces
    assert tok.tokenize("bakomi tuse") == ["ba", "##ko", "##mi", "tu", "##se"]
