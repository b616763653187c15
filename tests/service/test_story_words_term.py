"""The story score's ``words`` term weighs only the words the story uses: the same float as the
sum over every word of the item (a word the story does not use adds 0.0)."""

from __future__ import annotations

import random

from service.stories import Story, StoryEvidence, StoryTracker

VOCAB = [f"w{i}" for i in range(60)]


def _reference_words(t: StoryTracker, ev: StoryEvidence, story: Story) -> float:
    """The term as it was written before: every word of the item, in order."""
    idf = [t._idf(w) for w in ev.words]
    return sum(i * min(1.0, 2.0 * story.words.get(w, 0) / story.size)
               for w, i in zip(ev.words, idf, strict=True)) / sum(idf)


def test_the_words_term_is_the_sum_over_every_word() -> None:
    rng = random.Random(37)
    t = StoryTracker(threshold=0.7, window_days=3.0)
    stories = []
    for sid in range(1, 25):
        s = Story(sid, 0.0, 0.0)
        for _ in range(rng.randint(1, 6)):
            s.add(StoryEvidence.build(" ".join(rng.sample(VOCAB, rng.randint(2, 12))), "", "en", 0.0, None))
        stories.append(s)
    for s in stories:  # the stream's statistics: IDF weights that differ from word to word
        for w in s.words:
            t.df[w] += 1
    t.docs = 40
    checked = 0
    for _ in range(200):
        ev = StoryEvidence.build(" ".join(rng.sample(VOCAB, rng.randint(1, 15))), "", "en", 0.0, None)
        for s in stories:
            got = t.features(ev, s)["words"]
            assert got == _reference_words(t, ev, s)
            checked += got > 0.0
    assert checked > 100  # the stories share words with the items, not only 0.0 compared


def test_an_item_sharing_no_word_scores_zero() -> None:
    t = StoryTracker(threshold=0.7, window_days=3.0)
    s = Story(1, 0.0, 0.0)
    s.add(StoryEvidence.build("central bank raises rates", "", "en", 0.0, None))
    ev = StoryEvidence.build("volcano erupts island", "", "en", 0.0, None)
    assert ev.words and t.features(ev, s)["words"] == 0.0
