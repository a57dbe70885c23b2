"""MRC without training data: MCTest's sliding window + distance (Richardson et al. 2013), stored under its own
model name as a training-free zero-shot job, never as a trained model."""

from __future__ import annotations

import pytest

from dialectbench.backends.baseline.qa import SlidingWindow, _distance
from dialectbench.data.examples import MultipleChoiceExample

PASSAGE = ("Tom keeps a small cat at home. Every morning the dog runs to the river and swims. "
           "The cat sleeps on the red mat all day.")


def _mc(question, options, answer):
    return MultipleChoiceExample("q", PASSAGE, question, tuple(options), answer)


@pytest.mark.parametrize("question, options, answer", [
    ("Where does the dog run every morning?", ["to the mat", "to the river", "to the moon", "to a tree"], 1),
    ("What does the cat sleep on?", ["the river", "a chair", "the red mat", "the dog"], 2),
])
def test_the_option_whose_words_share_a_window_with_the_question_wins(question, options, answer):
    model = SlidingWindow()
    assert model.fit([]) is model and model.reports_as == "sliding-window"
    assert model.predict([_mc(question, options, answer)]) == [answer]


def test_inverse_count_weights_rare_words_and_distance_is_normalised():
    # "the" occurs 5 times, "river" once: a window matching "river" outweighs one matching "the"
    scores = SlidingWindow.scores(_mc("the", ["the", "river"], 1))
    assert scores[1] > scores[0]
    words = ["a", "b", "c", "d", "e"]
    assert _distance(words, {"a"}, {"e"}) == 1.0 and _distance(words, {"b"}, {"c"}) == 0.25
    assert _distance(words, {"a"}, set()) == 1.0  # no answer word in the passage: the largest distance


def test_a_task_without_training_data_gets_a_training_free_job(tmp_path):
    from runner_fakes import FakeSource

    from dialectbench.runner import Store, run
    from dialectbench.runner.plan import TRAINING_FREE

    data = {("mrc", "english"): {"test": [_mc("Where does the dog run every morning?",
                                              ["to the mat", "to the river", "to the moon", "to a tree"], 1)]}}
    result = run(store=tmp_path / "m.sqlite", tasks=["mrc"], source=FakeSource(data))
    assert any(s.setting == "combined" and "train split" in s.reason for s in result.plan.skips)
    with Store(tmp_path / "m.sqlite") as db:
        (row,) = db.scores()
    assert (row["model"], row["setting"], row["train_on"]) == ("sliding-window", "zero-shot", TRAINING_FREE)
    assert row["score"] == 100.0 and row["n"] == 1
