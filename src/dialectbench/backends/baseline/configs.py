"""The baselines' settings, apart from their models: the driver builds, hashes and ships them without
importing torch or CRFsuite."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CRFConfig:
    # L-BFGS, deterministic. CRFsuite's averaged perceptron ("ap", 10 passes) is 7x faster to train on
    # UD_English-EWT (94.61 accuracy in 23 CPU-s against 94.88 in 163) but shuffles the data with the C
    # library's rand(), one generator for the whole process: seeded before each fit it is reproducible
    # in one process or a local pool, yet on Ray the same plan stored other POS scores than in one
    # process (tests/test_ray_executor.py; most likely other threads of the Ray worker draw from it).
    # Scores must not depend on the executor, so the perceptron is opt-in.
    algorithm: str = "lbfgs"
    # 150 -> 100 (issue 27, measured side by side): UD_English-EWT 94.88 -> 94.92 accuracy, 103 -> 73 s;
    # Brazilian Portuguese 96.39 -> 96.40, 124 -> 88 s. L-BFGS has converged to within 0.05 by then.
    max_iterations: int = 100
    c1: float = 0.05  # L-BFGS only: L1 keeps the model small
    c2: float = 0.01  # L-BFGS and l2sgd

    def trainer_params(self) -> dict[str, float | int | str]:
        """The parameters CRFsuite's chosen algorithm accepts (it rejects the others)."""
        params: dict[str, float | int | str] = {"algorithm": self.algorithm, "max_iterations": self.max_iterations}
        if self.algorithm == "lbfgs":
            params.update(c1=self.c1, c2=self.c2)
        elif self.algorithm == "l2sgd":
            params["c2"] = self.c2
        return params


@dataclass(frozen=True)
class ParserConfig:
    # encoder under the biaffine head: "bilstm" (2-layer BiLSTM) or "cnn" (gated dilated convolutions).
    # Issue 41, UD_English-EWT, one thread, same budget and head: the cnn (conv_dim 128, dilations
    # 1,2,4,8,1,2) costs 0.76x the BiLSTM's CPU per training word but learns less per word: dev UAS 67.3
    # after one epoch (40 CPU-s) and 71.8 after two (79 CPU-s), where the BiLSTM has 74.7 after one
    # (52 CPU-s), 78.6 after two (105), and test UAS 83.17 after its 900k words (233 CPU-s).
    # Test UAS after a 100k-word budget: BiLSTM 64.7 (27 CPU-s), 1-layer BiLSTM 63.1 (19), cnn
    # conv_dim 256 61.1 (30), cnn conv_dim 128 58.3 (18). The cnn is dominated on the accuracy/CPU
    # frontier, so the BiLSTM stays the default (CPU-s from a shared, heavily loaded 2-core machine).
    # Round 2, cheaper steps for the BiLSTM (EWT, full 900k-word budget, one thread, fitted side by
    # side): default 83.17 test UAS / 78.37 LAS in 235 CPU-s; label_hidden=32 + fast_dropout 82.81 /
    # 77.25 in 212 (0.90x); also arc_hidden=128 82.42 / 77.14 in 191 (0.81x; its encoder's auxiliary
    # UPOS classifier tags EWT test at 92.25, below the CRF's 94.92, so a joint tagger needs more than
    # that linear layer); lstm_layers=1 with the first two 80.55 / 74.95 in 139 (0.59x). Per training step
    # on the same batches: fast_dropout 0.92x, label_hidden=32 0.86x, lstm_layers=1 0.65x, all three
    # 0.55x. Each cheaper point loses more UAS than the same CPU cut of the default's budget
    # would, so the defaults stand; the recurrence (LSTM forward and backward ~45% of a step) is the cost.
    # Round 3 (benchmarks/profile_parser.py, parser_steps.py; one thread): a step is backward 51%, encoder
    # forward 24%, head + losses 13%, Adam 3%, clipping 2.5% (already foreach); padding is 1.6% of the
    # batched positions and a dev pass 2.5 CPU-s (~5% of a fit), so no structural waste is left but
    # nn.Dropout's bernoulli_ (6%, fast_dropout). torch runs a packed batch whose sentences all have one
    # length (most batches) through oneDNN's LSTM, a mixed one through its per-step loop (1.3x the CPU a
    # word); with oneDNN off a step costs 1.28x and its losses differ from 1e-4 on, so the default's LSTM
    # numerics are oneDNN's. CPU a training word by batch_tokens: 250 245 us, 500 221, 1000 205, 2000
    # 218 -- larger steps save <= 16% a word and lose UAS: EWT test, fitted in one run with the default
    # (83.17 / 78.37, 217 CPU-s): 450k words, lr 4e-3, warmup_words 20k: 81.37 / 76.09 in 106 (0.49x);
    # alone: 1000 tokens x 600k, lr 4e-3, warmup 50k: 79.22 / 73.30 in 118. Joint tagging: an MLP UPOS
    # head (upos_hidden 256, upos_weight 2) tags EWT test at 93.09 (linear head 92.29; CRF 94.92) at
    # 82.94 UAS, 1.06x the CPU; upos_weight 5 (alone): 93.60 at 81.97 UAS. The tag loss takes from the
    # parser before it reaches the CRF's 94.5+, so pos jobs keep the CRF.
    arch: str = "bilstm"
    word_dim: int = 100
    char_dim: int = 32
    char_filters: int = 64
    lstm_hidden: int = 150        # per direction; sized for a few CPU minutes on UD_English-EWT
    lstm_layers: int = 2
    conv_dim: int = 128           # arch="cnn": width of the convolution blocks
    conv_dilations: tuple[int, ...] = (1, 2, 4, 8)  # arch="cnn": one block each; context +-15 words
    # arch="transformer" (attention.py): pre-LN self-attention blocks, a learned per-head bias on the
    # relative distance between words clipped at attn_max_distance. Issue 41, EWT, one thread, all with
    # label_hidden=32, arc_max_distance=16, warmup_words=20k, fast_dropout (CPU-s on a loaded 2-core
    # machine, the BiLSTM fitted alongside): the BiLSTM is 76.05 test UAS at 300k words (76 CPU-s);
    # attention only, d128 x2 layers 60.5 (47), d192 x2 63.4 (60): without recurrence or convolution it
    # learns far less per word. 2 conv blocks + 2 attention d128: 71.07 (52), lr 4e-3 72.87 (50), at
    # 900k words 79.56 / 73.62 LAS (148); 3 conv + 1 attention d192: 73.75 (67), lr 4e-3 at 600k words
    # 79.55 / 73.58 (117), at 900k 82.29 / 77.33 (171; its encoder's UPOS 93.14). The BiLSTM's full fit
    # in the same window: 83.17 / 78.37 (213). Per word 0.55-0.8x the BiLSTM's CPU and a little above its
    # accuracy/CPU frontier, but far from 3x at 83: not a default.
    # Round 4 (EWT, one thread, single fits in one window; default 83.17 / 78.37 in 206 CPU-s): the
    # 2-layer BiLSTM with arc_max_distance=16, label_hidden=32, fast_dropout, lr 4e-3, warmup_words 20k is
    # 84.71 / 79.92 at 900k words (181 CPU-s, 0.88x), 83.27 / 77.99 at 600k (118, 0.57x; arc_hidden 128
    # 82.98 in 111, lstm_hidden 100 81.97 in 92), 82.35 / 76.70 at 500k (98), 81.83 / 75.87 at 450k (91);
    # 1 layer 82.45 / 77.61 at 900k (125). At 300k (default 76.05 in 70): distance score alone 77.10, with
    # the rest 79.28 (60), 1 layer 77.20 (43); the hybrid with arc_hidden 128 74.72 (57), + char_filters 32
    # 73.68 (55): dominated. Reaches 83 at 0.57x, not 3x.
    # The 600k-word recipe fitted beside the default: EWT 83.27 / 77.99 vs 83.17 / 78.37 (119 vs 201 CPU-s,
    # 0.59x); French (Paris) 78.45 vs 78.42 (0.70x); North Saami 69.74 vs 65.31; Singlish 73.14 vs 68.28; West
    # Low German 66.08 vs 64.14. On the whole real UD slice (in-variety, 15 treebanks, seed 0) +0.76 UAS on
    # average and 12:43 wall instead of 16:39, but with a 20k-word warmup Komi-Permyak 38.54 -> 36.01,
    # Komi-Zyrian 27.58 -> 26.23 and French 86.98 -> 85.86. Seeds 0-2 (baseline_ud --compare --seeds) say how
    # much of that is noise: the default's own sd is 0.8-1.6 UAS on these test sets. Means, default / 20k
    # warmup / 2k warmup: Komi-Permyak 38.74 / 37.41 / 38.22, Komi-Zyrian 28.26 / 28.57 / 28.70, Skolt Saami
    # 31.47 / 31.42 / 30.91, Ligurian 33.05 / 33.74 / 33.57, Singlish 69.35 / 72.15 / 72.92; French default
    # 86.54, 20k warmup 87.55. A fixed 20k words is 3% of EWT's fit but up to 54% of a tiny treebank's
    # (Komi-Permyak: 248 training words, 30 passes of 10 updates = 37k planned), so, round 5, the warmup is a share
    # of the planned words (warmup_share: 1/30, one planned pass; EWT's 20k) and the recipe became the default.
    # Round 5, regularisation (EWT single fits, one thread, the recipe at other budgets): at short budgets
    # dropout 0.33 over-regularises. 450k words: dropout 0.33 81.64 (92 CPU-s), 0.25 83.26, 0.2 84.48, lr 6e-3
    # 82.20, 0.25 + lr 6e-3 84.20; 350k: 0.25 82.27 (71), 0.2 83.17 / 77.83 (74); 300k: 0.25 81.23 (63), 0.15
    # 82.84, with lr 6e-3: 0.2 82.99 (60), 0.15 83.70, 0.1 84.59 / 79.94 (65, 0.32x the pre-41 default's 201).
    # But tiny treebanks, 30 passes over a few hundred words, overfit without it (means of seeds 0-2 against
    # the pre-41 default): dropout 0.1 Ligurian 29.26 vs 33.05 (with lr 6e-3 31.23); dropout 0.2 + lr 6e-3
    # Ligurian 30.42, Komi-Permyak 37.86 vs 38.74. Dropout 0.2 with lr 4e-3 at 350k keeps them (Ligurian
    # 33.43, Skolt Saami 30.48 vs 31.47, Komi-Permyak 39.34, Komi-Zyrian 28.81 vs 28.26, Singlish seed 2
    # 73.50 vs 69.37) and is the default: EWT 83.17 at 0.37x. Regularisation that grows with the passes a fit
    # makes over its data would let large treebanks take dropout 0.1 and 300k words (3x) too.
    attn_dim: int = 256
    attn_layers: int = 3
    attn_heads: int = 8
    attn_ffn: int = 512
    attn_dropout: float = 0.1     # on attention weights and each residual branch (cfg.dropout: input, output)
    attn_max_distance: int = 16
    attn_max_positions: int = 256  # learned absolute position embeddings
    attn_conv_blocks: int = 0      # gated kernel-3 convolution blocks before the attention blocks
    arc_hidden: int = 256
    label_hidden: int = 32
    # a learned arc score per signed head-dependent distance, clipped here (0: none; see BiaffineArcScorer)
    arc_max_distance: int = 16
    dropout: float = 0.2
    # issue 41: dropout masks from torch.rand (MaskDropout) instead of nn.Dropout's slower bernoulli_
    # kernel; the same distribution, other random numbers, so other scores (off: keeps the job key)
    fast_dropout: bool = True
    # issue 41, joint tagger-parser: the auxiliary UPOS classifier on the encoder's states is a linear layer
    # (upos_hidden=0, today's) or an MLP with that hidden size; upos_weight scales its loss against the parser's
    upos_hidden: int = 0
    upos_weight: float = 1.0
    word_dropout: float = 0.25    # alpha in p(unk) = alpha / (alpha + count): rare words learn to back off to chars
    min_word_count: int = 2
    lr: float = 4e-3
    # linear decay of the learning rate to 0 over the work budget: a short schedule (a few epochs) ends
    # in a better optimum than a constant rate cut off mid-way (a small treebank's schedule is its
    # max_epochs passes)
    lr_decay: bool = True
    # issue 41: the learning rate rises linearly from 0 over this share of the words the fit plans to go
    # through (planned_words; 0: none, the schedule before issue 41), so a higher lr does not diverge early.
    # A share, not a word count: a 20k-word warmup is 3% of EWT's 600k-word fit but 54% of Komi-Permyak's
    # 37k (see round 5 above); 1/30 is one of max_epochs' planned passes
    warmup_share: float = 1 / 30
    # ~10 sentences an update. The number of updates, more than the words seen, sets the UAS for a
    # given CPU cost (a word costs about the same in 250- and 500-token batches, 30% more in 125).
    # UD_English-EWT test, LR decay: 1000 tokens x 1.2M words 81.30; 500 x 1.2M 83.71 (510 CPU-s);
    # 500 x 600k 78.78; 250 x 600k 81.66; 125 x 600k 82.08 (446 CPU-s); 250 x 900k 83.24 (419 CPU-s)
    batch_tokens: int = 250
    max_epochs: int = 30
    # deterministic work budget (~1.7 epochs of UD_English-EWT, ~75 CPU seconds); small treebanks stop
    # at max_epochs or on dev patience first: they need them (the mirror's French treebank, 24k words:
    # 80.33 UAS after 8 epochs, 85.71 after 15). max_seconds is a wall-clock cap on top (results then
    # depend on machine speed, so it is off by default).
    max_train_words: int | None = 350_000
    min_steps_per_epoch: int = 10  # tiny training sets: an "epoch" repeats the data to this many updates
    patience: int = 3              # epochs without a dev UAS gain before stopping
    max_seconds: float | None = None
    threads: int | None = None     # torch.set_num_threads during fit/predict; None leaves torch's default
    verbose: bool = False

    def planned_words(self, n_words: float, n_batches: int) -> float:
        """Training words a fit on `n_words` in `n_batches` batches goes through unless dev patience stops
        it first: the work budget, or max_epochs passes (a tiny set's pass repeats its data to
        min_steps_per_epoch updates)."""
        return min(self.max_train_words or float("inf"), self.max_epochs * self._epoch_words(n_words, n_batches))

    def expected_words(self, n_words: float, n_batches: int, dev: bool) -> float:
        """The training words a fit is likely to go through, for an ETA: with a dev split, patience
        stops it about `patience` + 2 epochs in unless the budget does first (the sample suite's
        treebanks stopped after 4 and 5 of 30 planned epochs); without one the training loss keeps
        falling and it runs about `planned_words` (25 of 30)."""
        planned = self.planned_words(n_words, n_batches)
        return min(planned, (self.patience + 2) * self._epoch_words(n_words, n_batches)) if dev else planned

    def _epoch_words(self, n_words: float, n_batches: int) -> float:
        """Words one epoch goes through: a tiny set's pass repeats its data to min_steps_per_epoch updates."""
        n_batches = max(1, n_batches)
        repeats = -(-self.min_steps_per_epoch // n_batches) if n_batches < self.min_steps_per_epoch else 1
        return n_words * repeats
