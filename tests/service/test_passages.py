"""The passage path of dedupe (RAG chunks): copies dropped, windows with new content never dropped."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest

from index.passages import Passage, split_sentences, strip_boilerplate
from service.passages import PassageConfig, PassageDeduper, PassageDedupeResult, texts_of

EN = [
    "The central bank raised its policy rate by a quarter point on Thursday.",
    "Officials said inflation had stayed above target for eleven months.",
    "Markets had expected the move after strong jobs data last week.",
    "The governor told reporters that further increases were possible.",
    "Bond yields rose sharply in the hours after the announcement.",
    "Exporters warned that a stronger currency would hurt their margins.",
    "The next policy meeting is scheduled for late October.",
    "Analysts at several banks revised their forecasts for next year.",
]
KO = [
    "중앙은행은 목요일 정책금리를 0.25%포인트 인상했다.",
    "관계자들은 물가가 11개월째 목표치를 웃돌았다고 밝혔다.",
    "시장은 지난주 강한 고용 지표 이후 금리 인상을 예상해 왔다.",
    "총재는 기자들에게 추가 인상이 가능하다고 말했다.",
    "발표 직후 몇 시간 만에 채권 금리가 급등했다.",
    "수출업체들은 통화 강세가 마진을 해칠 것이라고 경고했다.",
    "다음 통화정책회의는 10월 말로 예정돼 있다.",
    "여러 은행의 분석가들은 내년 전망치를 수정했다.",
]


def windows(sents: list[str], size: int = 4, stride: int = 2) -> list[str]:
    return [" ".join(sents[i : i + size]) for i in range(0, len(sents) - size + 1, stride)]


class AlignedEncoder:
    """Sentence i of EN and of KO get the same random direction (a perfect translation model),
    any other text its own; counts the texts it embeds."""

    def __init__(self) -> None:
        rng = np.random.default_rng(0)
        base = rng.normal(size=(len(EN), 64))
        self.table = {s: base[i] for i, s in enumerate(EN)} | {s: base[i] for i, s in enumerate(KO)}
        self.calls: list[int] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        out = []
        for t in texts:
            v = self.table.get(t)
            if v is None:
                v = np.random.default_rng(abs(hash(t)) % 2**32).normal(size=64)
            out.append(v / np.linalg.norm(v))
        return np.asarray(out, dtype=np.float32)


def test_sentences_and_boilerplate() -> None:
    assert split_sentences("Mr. Lee met U.S. officials on Oct. 2. They agreed.\nNew line here") == [
        "Mr. Lee met U.S. officials on Oct. 2.", "They agreed.", "New line here"]
    assert strip_boilerplate("[사진=연합뉴스] 금리가 올랐다. 저작권자 ⓒ") == ("금리가 올랐다.", ("[사진=연합뉴스]", "저작권자 c"))  # NFKC: ⓒ -> c
    # Boilerplate words inside a sentence stay: only the passage's ends are cut.
    assert strip_boilerplate("He said Advertisement revenue fell.")[0] == "He said Advertisement revenue fell."


def test_overlapping_windows_are_all_kept_and_copies_dropped() -> None:
    wins = windows(EN, size=4, stride=1)  # each shares three of four sentences with the next
    copies = [wins[0].replace(" ", "  "), "(Reuters) - " + wins[1], wins[2].replace("expected", "expcted")]
    res = PassageDeduper().dedupe(wins + copies)
    assert res.keep == list(range(len(wins)))
    assert [(d.index, d.duplicate_of, d.stage) for d in res.filtered] == [
        (len(wins), 0, "exact"), (len(wins) + 1, 1, "exact"), (len(wins) + 2, 2, "minhash")]
    # Why each window was kept: its new sentence is named.
    assert any("new content" in r for r in res.verdicts[1].reasons)


def test_a_window_below_the_jaccard_bar_names_its_new_words() -> None:
    """docs/operations.md: an overlapping window "stays, with its new words named in its reasons";
    below the Jaccard bar the reason gave only a count ("4 of its words are not in it")."""
    res = PassageDeduper().dedupe(["Samsung posted record profit. Chip sales rose 20%. Shares climbed.",
                                   "Chip sales rose 20%. Shares climbed. Analysts expect more gains."])
    assert res.keep == [0, 1]
    assert any("4 of its words are not in it (new content, or typos): 'analysts', 'expect', 'more', 'gains'" in r
               for r in res.verdicts[1].reasons), res.verdicts[1].reasons


def test_a_chunk_inside_a_longer_one_with_one_new_sentence_is_kept() -> None:
    long = " ".join(EN[:6])
    near = " ".join(EN[:6]) + " A new sentence about the banks' response."
    res = PassageDeduper().dedupe([long, near])
    assert res.keep == [0, 1]
    assert "new content" in res.verdicts[1].reasons[0]


def test_changed_numbers_dates_and_versions_are_new_content() -> None:
    a = ("The bank raised its rate by 25 basis points on Thursday. Inflation stayed above target for 11 months. "
         "The next meeting is on Oct. 28, 2024. Its model 2.1 was used.")
    variants = [a.replace("Thursday", "Thrusday"), a.replace("11 months", "12 months"),
                a.replace("25 basis", "50 basis"), a.replace("model 2.1", "model 2.2")]
    res = PassageDeduper.with_default_guards().dedupe([a, *variants])
    assert res.keep == [0, 2, 3, 4]  # only the typo copy is dropped
    assert "new content): '12'" in res.verdicts[2].reasons[0]
    assert res.verdicts[3].reasons[0].startswith("kept: #0 has 5-gram Jaccard") and "12" not in res.verdicts[3].reasons[0]


def test_records_in_records_out_keep_their_fields() -> None:
    recs = [{"text": " ".join(EN[:4]), "id": "a", "score": 0.9},
            {"text": "", "id": "blank"},
            {"text": " ".join(EN[:4]) + "\n", "id": "b", "score": 0.7}]
    res = PassageDeduper().dedupe(recs)
    assert res.selected == recs[:2]
    (drop,) = res.filtered
    assert (drop.index, drop.record["id"], drop.duplicate_of, drop.stage) == (2, "b", 0, "exact")
    assert res.verdicts[1].reasons == ("kept: empty text (nothing to compare)",)
    assert res.clusters == [[0, 2], [1]] and res.duplicate_ratio == pytest.approx(1 / 3)
    res = PassageDeduper().dedupe([{"body": "x"}, {"body": "x"}], text_field="body")
    assert res.keep == [0]


@pytest.mark.parametrize("records, message", [
    ("just a string", "records must be a list"),
    ([{"txt": "a"}], r"records\[0\] has no field 'text'"),
    (["a", {"text": 3}], r"records\[1\]\['text'\] must be a string, got int"),
    (["a", 7], r"records\[1\] must be a string or a mapping, got int"),
    # "korean" raised in the guards mid-dedupe ("GuardInput.lang ..."); 3 was silently detected over
    ([{"text": "a", "lang": "korean"}], r"records\[0\]\['lang'\] must be a language tag .* got 'korean'"),
    ([{"text": "a", "lang": 3}], r"records\[0\]\['lang'\] must be a language tag .* got 3"),
])
def test_bad_records_fail_with_one_precise_message(records, message) -> None:
    with pytest.raises(ValueError, match=message):
        texts_of(records)


def test_translations_merge_but_translated_overlapping_windows_do_not() -> None:
    enc = AlignedEncoder()
    en, ko = windows(EN, 4, 2), windows(KO, 4, 2)    # three windows each; neighbours share two sentences
    res = PassageDeduper(enc).dedupe(en + ko)
    assert res.keep == [0, 1, 2]
    for k in range(3):
        v = res.verdicts[3 + k]
        assert (v.duplicate_of, v.stage) == (k, "embedding") and v.scores["coverage"] == pytest.approx(1.0)
    # Each distinct sentence was embedded once, in one call.
    assert enc.calls == [len(set(EN[:8]) | set(KO[:8]))]
    # A Korean window that shares only half its sentences with every English one stays.
    res = PassageDeduper(enc).dedupe([en[0], " ".join(KO[2:6])])
    assert res.keep == [0, 1] and "not a translation" in res.verdicts[1].reasons[-1]
    # Stricter after the fact, without recomputing.
    again = PassageDeduper(enc).dedupe(en + ko).rethreshold(coverage=1.01)
    assert again.keep == list(range(6))


def test_the_gate_embeds_in_full_only_chunks_near_another_language() -> None:
    enc = AlignedEncoder()
    # Two Korean chunks on other subjects: every sentence orthogonal to the EN/KO sentences and
    # to each other, so their first-and-last-sentence probes are near no English chunk.
    rng = np.random.default_rng(1)
    base = np.stack([enc.table[t] for t in EN])
    q, _ = np.linalg.qr(np.concatenate([base, rng.normal(size=(8, 64))]).T)
    other = [f"관련 없는 기사 {k}의 {j}번째 문장이다." for k in range(2) for j in range(4)]
    enc.table.update({t: q[:, len(EN) + n] for n, t in enumerate(other)})
    chunks = [" ".join(EN[:4]), " ".join(other[:4]), " ".join(other[4:]), " ".join(KO[:4])]
    res = PassageDeduper(enc).dedupe(chunks)
    assert res.keep == [0, 1, 2]
    assert (res.verdicts[3].duplicate_of, res.verdicts[3].stage) == (0, "embedding")
    # First the 8 probe sentences (first and last of each chunk), then only the 4 other
    # sentences of the two chunks the gate let through.
    assert enc.calls == [8, 4]
    for k in (1, 2):
        assert "probe" in res.verdicts[k].reasons[-1] and "not embedded" in res.verdicts[k].reasons[-1]
    # With the gate off (probe_share 0) the decisions are the same, with every sentence embedded.
    enc.calls.clear()
    ungated = PassageDeduper(enc, config=PassageConfig(probe_share=0.0)).dedupe(chunks)
    assert ungated.duplicate_of == res.duplicate_of and enc.calls == [16]


def test_translation_reasons_say_which_side_of_each_bar_a_score_fell_on() -> None:
    """A reason read "alignment score 0.624 (>= 0.51?)": a question. It states the comparison that
    holds, ">=" for a merged translation, "<" for the bar a kept chunk missed."""
    enc = AlignedEncoder()
    en = " ".join(EN[:4])
    merged = PassageDeduper(enc).dedupe([en, " ".join(KO[:4])]).verdicts[1].reasons[-1]
    assert "?" not in merged and "alignment score 1.000 >= 0.51, coverage 1.000 >= 0.75" in merged, merged
    kept = PassageDeduper(enc).dedupe([en, " ".join(KO[:2] + KO[4:6])]).verdicts[1].reasons[-1]
    # half its sentences aligned: the score passes its bar, the coverage (of characters) does not
    assert "?" not in kept and "alignment score 0.548 >= 0.51, coverage 0.517 < 0.75" in kept, kept


def test_single_sentence_texts_are_not_aligned_as_translations() -> None:
    # Unpunctuated text is one "sentence": one cosine is no alignment, so it is never a
    # translation, even when the encoder calls the two texts identical.
    en = " ".join(s.rstrip(".") for s in EN[:4])
    ko = " ".join(s.rstrip(".") for s in KO[:4])
    enc = AlignedEncoder()
    enc.table[en] = enc.table[ko] = enc.table[EN[0]]
    res = PassageDeduper(enc).dedupe([en, ko])
    assert res.keep == [0, 1] and "fewer than 2 sentence pairs" in res.verdicts[1].reasons[-1]


def test_one_language_never_calls_the_encoder() -> None:
    enc = AlignedEncoder()
    PassageDeduper(enc).dedupe(windows(EN, 4, 1))
    assert enc.calls == []


def test_config_threshold_override_is_validated() -> None:
    with pytest.raises(ValueError, match="threshold must be in"):
        PassageDeduper().dedupe(["a b c"], threshold=1.5)
    assert PassageConfig().shingle_jaccard > PassageConfig().lsh_threshold


def test_passage_features_are_deterministic() -> None:
    a, b = Passage.build(" ".join(KO[:4])), Passage.build(" ".join(KO[:4]))
    assert a.lang == "ko" and a.norm_key == b.norm_key and (a.shingles == b.shingles).all()


def test_engine_dedupe_routes_passages_and_headlines() -> None:
    from service.engine import Deduper

    d = Deduper.open(":memory:", model=None)
    wins = windows(EN, 4, 1)
    res = d.dedupe([*wins, wins[0]])
    assert res.keep == list(range(len(wins))) and res.filtered[0].duplicate_of == 0
    head = d.dedupe(["Fed raises rates", "FED raises rates!", "ECB holds"], kind="headline")
    assert head.keep == [0, 2]
    with pytest.raises(ValueError, match="kind must be"):
        d.dedupe(["a"], kind="tweet")
    d.close()


def test_headline_dedupe_reasons_name_input_positions_as_the_passage_kind_does(make_client) -> None:
    """The headline kind said "as document 1" and "with anchor 1" where it meant input positions
    (the store's words for ingest); the passage kind says "#1". Only the words change."""
    from service.engine import Deduper

    texts = ["Samsung posts record quarterly profit", "Fed raises rates by 25 basis points",
             "FED RAISES RATES BY 25 BASIS POINTS", "Fed raises interest rates by 25 basis points"]
    d = Deduper.open(":memory:", model=None)
    head = d.dedupe(texts, kind="headline")
    d.close()
    assert head.duplicate_of == [None, None, 1, 1]
    assert [r.stage for r in head.decisions[2:]] == ["exact", "ngram"]
    assert head.decisions[2].reasons[0] == "exact: same normalised title as #1"  # a headline has no body
    assert re.fullmatch(r"ngram: weighted 3-gram Jaccard 0\.\d+ >= 0\.3 with #1 \(lead 'fed'\)", head.decisions[3].reasons[0])
    reasons = [x for r in head.decisions for x in r.reasons]
    assert not [x for x in reasons if "document" in x or "anchor" in x]
    body = make_client().post("/v1/dedupe", json={"texts": texts, "kind": "headline"}).json()
    assert [x["reasons"][0] for x in body["dropped"]] == [r.reasons[0] for r in head.decisions[2:]]


def test_a_kept_headline_says_stage_none_as_a_kept_passage_and_a_new_ingested_item_do(make_client) -> None:
    """The headline kind reported a kept text under the last stage the cascade ran ("minhash"
    without a model, "embedding" with one); the passage kind and the ingest say "none"."""
    from service.engine import Deduper

    texts = ["Fed raises rates by 25 basis points", "FED RAISES RATES BY 25 BASIS POINTS",
             "Fed raises rates by 50 basis points", "Samsung posts record quarterly profit"]
    d = Deduper.open(":memory:", model=None)
    head = d.dedupe(texts, kind="headline")
    passage = d.dedupe(texts)
    ingested = [r.to_dict()["decision"]["stage"] for r in d.ingest_many([{"title": t} for t in texts])]
    d.close()
    assert head.duplicate_of == [None, 0, None, None]  # decisions unchanged: the 50bp one is vetoed
    assert [x.stage for x in head.decisions] == ["none", "exact", "none", "none"]
    assert "quantity" in head.decisions[2].blocked_by and head.decisions[2].score is not None  # what the stages saw
    assert passage.keep == [0, 2, 3] and [passage.decisions[i].stage for i in passage.keep] == ["none"] * 3
    assert ingested == ["none", "exact", "none", "none"]
    body = make_client().post("/v1/dedupe", json={"texts": texts, "kind": "headline"}).json()
    assert [x["stage"] for x in body["decisions"]] == ["none", "exact", "none", "none"]


def test_cli_dedupe_jsonl_records_in_records_out(tmp_path, capsys) -> None:
    import json

    from service.cli import main

    wins = windows(EN, 4, 2)
    lines = [json.dumps({"text": wins[0], "id": "a"}), "", json.dumps({"text": wins[1], "id": "b"}),
             json.dumps({"text": "Advertisement " + wins[0], "id": "c", "rank": 3})]
    src = tmp_path / "chunks.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    dropped = tmp_path / "dropped.jsonl"
    assert main(["dedupe", str(src), "--field", "text", "--model", "none", "--dropped", str(dropped), "--quiet"]) == 0
    kept = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in kept] == ["a", "b"]
    (d,) = [json.loads(x) for x in dropped.read_text(encoding="utf-8").splitlines()]
    # Positions are the file's own lines (the blank line 1 counts).
    assert (d["index"], d["duplicate_of"], d["stage"], d["record"]["rank"]) == (3, 0, "exact", 3)
    assert main(["dedupe", str(src), "--model", "none", "--json", "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert obj["keep"] == [0, 2] and obj["copy_groups"] == obj["clusters"] == [[0, 3], [2]] and obj["dropped"][0]["index"] == 3
    src.write_text('{"body": "x"}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["dedupe", str(src), "--model", "none"])
    # it says what the record has and that --field names the text field
    assert str(exc.value.code).endswith("chunks.jsonl:1: expected a JSON object with a string field 'text' "
                                        "(its fields: 'body'; --field names the text field)")
    src.write_text('{"text": 3}\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"chunks.jsonl:1: expected a JSON object with a string field 'text', got a number$"):
        main(["dedupe", str(src), "--model", "none"])
    src.write_text('["x"]\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"chunks.jsonl:1: expected a JSON object with a string field 'text', got an array$"):
        main(["dedupe", str(src), "--model", "none"])
    # Fifth tour: a null text said "got NoneType", Python's word, to a reader of JSON.
    src.write_text('{"text": null}\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"chunks.jsonl:1: expected a JSON object with a string field 'text', got null$"):
        main(["dedupe", str(src), "--model", "none"])


def test_http_dedupe_records_and_kinds(make_client) -> None:
    client = make_client()
    wins = windows(EN, 4, 1)
    recs = [{"text": w, "id": k} for k, w in enumerate(wins)] + [{"text": "(Reuters) - " + wins[2], "id": "copy"}]
    r = client.post("/v1/dedupe", json={"records": recs})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["keep"] == list(range(len(wins))) and body["selected"] == recs[:-1]
    (d,) = body["dropped"]
    assert (d["index"], d["duplicate_of"], d["stage"], d["record"]["id"]) == (len(wins), 2, "exact", "copy")
    assert body["duplicate_of"][-1] == 2 and body["decisions"][-1]["matched_id"] == 2
    r = client.post("/v1/dedupe", json={"texts": ["Fed raises rates", "FED raises rates!"], "kind": "headline"})
    assert r.json()["keep"] == [0]
    r = client.post("/v1/dedupe", json={"texts": ["a"], "records": [{"text": "a"}]})
    assert r.status_code == 422 and "give either texts or records" in r.json()["detail"]
    r = client.post("/v1/dedupe", json={"records": [{"body": "a"}]})
    assert r.status_code == 422 and r.json()["detail"] == "records[0].text: Field required"


@pytest.mark.evaldata
def test_eval_pairs_route_dedupe_on_rag_chunks(capsys) -> None:
    import json

    from eval.cli import main
    from eval.data import eval_data_dir

    path = eval_data_dir() / "rag-chunks-ntrex" / "dev.jsonl"
    if not path.is_file():
        pytest.skip(f"eval data not found at {path}")
    # Cheap passes only (no encoder): same-language copies and negatives are settled lexically.
    assert main(["eval", "pairs", str(path), "--route", "dedupe", "--model", "none", "--sample", "240", "--json",
                 "--no-progress"]) == 0
    obj = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    kinds = obj["by_kind"]
    for k in ("chunk_format_copy", "chunk_boilerplate_copy"):
        assert kinds[k]["recall"] == 1.0, k
    for k in ("chunk_overlap_negative", "chunk_same_doc_negative", "chunk_other_doc_negative"):
        assert kinds[k]["fp"] == 0, k
    assert kinds["xl_chunk_translation"]["tp"] == 0   # no encoder, no translation merges


def test_a_translation_goes_to_its_best_alignment_not_the_first_candidate_by_cosine() -> None:
    # K (Korean) is a translation of B: each sentence at cosine 0.8. A repeats its third sentence
    # instead of having K's fourth (the Tatoeba case): its mean vector is nearer K's (0.82 >
    # 0.80), 3 of 4 sentences align, which passes coverage 0.75, and the repeat joins a 2-1 bead
    # that lifts its alignment score above B's (0.93 > 0.80); B aligns all four of K's.
    e = np.eye(16, dtype=np.float32)
    vec = {}
    a_text = ["Alpha one is here.", "Alpha two is here.", "Alpha three is here.", "Alpha three again here."]
    b_text = ["Beta one is here.", "Beta two is here.", "Beta three is here.", "Beta four is here."]
    k_text = ["케이 하나다.", "케이 둘이다.", "케이 셋이다.", "케이 넷이다."]
    for i in range(4):
        vec[k_text[i]] = e[i]
        vec[b_text[i]] = 0.8 * e[i] + 0.6 * e[8 + i]
    vec[a_text[0]], vec[a_text[1]], vec[a_text[2]], vec[a_text[3]] = e[0], e[1], e[2], e[2]

    def enc(texts: Sequence[str]) -> np.ndarray:
        return np.stack([vec[t] / np.linalg.norm(vec[t]) for t in texts]).astype(np.float32)

    res = PassageDeduper(enc).dedupe([{"text": " ".join(a_text), "lang": "en"},
                                      {"text": " ".join(b_text), "lang": "en"},
                                      {"text": " ".join(k_text), "lang": "ko"}])
    v = res.verdicts[2]
    assert (v.duplicate_of, v.stage) == (1, "embedding")
    assert v.scores["alignment"] == pytest.approx(0.8, abs=1e-3) and v.scores["coverage"] == pytest.approx(1.0)
    # A did pass on its own: it was a candidate, only a worse one.
    alone = PassageDeduper(enc).dedupe([{"text": " ".join(a_text), "lang": "en"}, {"text": " ".join(k_text), "lang": "ko"}])
    assert alone.verdicts[1].duplicate_of == 0 and alone.verdicts[1].scores["cosine"] > v.scores["cosine"]


def test_templated_lines_are_verified_in_one_pass_per_chunk_not_pair_by_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """One-line items from one template share half their 5-grams, so the LSH proposes about a
    third of all earlier kept lines for each; checking them with one ``jaccard`` call a pair (8 us
    each) made 2,000 lines take 14 s and 4,000 take 42 s (the fourth tour). Counted, not timed:
    next to no per-pair call, and each chunk reads back only the head of its list (the candidates at or
    above the bar and the best below it), with the same decisions."""
    import index.minhash as minhash

    pairwise = 0
    real_jaccard = minhash.jaccard

    def counting_jaccard(a: np.ndarray, b: np.ndarray) -> float:
        nonlocal pairwise
        pairwise += 1
        return real_jaccard(a, b)

    heads: list[int] = []
    real_candidates = minhash.MinHashIndex.candidates

    def recording_candidates(self: minhash.MinHashIndex, grams: np.ndarray, **kw: object) -> list[tuple[int, float]]:
        out = real_candidates(self, grams, **kw)  # type: ignore[arg-type]
        heads.append(len(out))
        return out

    monkeypatch.setattr(minhash, "jaccard", counting_jaccard)
    monkeypatch.setattr(minhash.MinHashIndex, "candidates", recording_candidates)
    lines = [f"item {i} headline number {i * 7919} about topic {i % 97}" for i in range(300)]
    res = PassageDeduper().dedupe(lines)
    assert res.keep == list(range(300))
    # One call a proposed pair was 15,657 calls; now only chunks with a handful of hits
    # (_PAIRWISE_HITS or fewer) are verified pair by pair.
    assert pairwise <= minhash._PAIRWISE_HITS * len(lines), pairwise
    # What the LSH proposes (the full lists, built again without the counting): about a third of
    # the earlier lines for each.
    idx = minhash.MinHashIndex(threshold=PassageConfig().lsh_threshold, num_perm=PassageConfig().num_perm)
    proposed = 0
    for i, t in enumerate(lines):
        grams = Passage.build(t).shingles
        proposed += len(real_candidates(idx, grams))
        idx.add(i, grams, 0.0)
    assert proposed > 300 * 299 / 2 / 5
    assert max(heads) == 1  # every line is kept below the bar: only the nearest comes back
    assert res.verdicts[299].reasons[0].startswith("kept: nearest same-language chunk #")



LONG = ("Daily report {i}: the committee met in the main hall and discussed the budget, the schedule and the "
        "staffing plan for the coming quarter.")  # research/dedupe_scale.py's ``--template long``


def _decisions(res: PassageDedupeResult) -> list[dict[str, object]]:
    """The verdicts without a kept chunk's reasons (its notes, which the cap shortens)."""
    return [{k: v for k, v in d.items() if not (d["kept"] and k == "reasons")} for d in (v.to_dict() for v in res.verdicts)]


def test_a_line_repeated_with_its_number_changed_gets_five_notes_and_a_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every earlier line is over the Jaccard bar and lacks this line's number: the reasons named
    each (999 on the 1,000th line, 42 MB of JSON for 1,000 lines). Now the nearest MAX_NOTES in
    full, as before, and one line counting the rest; past those the word check is skipped for
    the lines without this line's number."""
    import service.passages as sp

    calls = 0
    real_new_words = Passage.new_words

    def counting_new_words(self: Passage, other: Passage) -> tuple[list[str], list[str]]:
        nonlocal calls
        calls += 1
        return real_new_words(self, other)

    monkeypatch.setattr(Passage, "new_words", counting_new_words)
    lines = [LONG.format(i=i) for i in range(200)]
    res = PassageDeduper.with_default_guards().dedupe(lines)
    assert res.keep == list(range(200)) and sp.MAX_NOTES == 5
    assert calls <= 5 * 200, calls  # uncapped: one a pair, 19,900
    last = res.verdicts[199].reasons
    assert len(last) == 6 and all(re.fullmatch(r"kept: #\d+ has 5-gram Jaccard 0\.\d{3} but 1 word\(s\) not in it "
                                               r"\(new content\): '199'", r) for r in last[:5]), last
    assert re.fullmatch(r"kept: and 194 more earlier chunks with 5-gram Jaccard 0\.\d{3} to 0\.\d{3} lack a word or "
                        r"number of this one", last[5]), last[5]
    assert max(len(v.reasons) for v in res.verdicts) == 6
    assert [len(res.verdicts[i].reasons) for i in range(7)] == [1, 1, 2, 3, 4, 5, 6]  # "no candidate", then one a line
    # Uncapped (the behaviour before): the same first five notes, and 194 more.
    monkeypatch.setattr(sp, "MAX_NOTES", 10**9)
    full = PassageDeduper.with_default_guards().dedupe(lines)
    assert full.verdicts[199].reasons[:5] == last[:5] and len(full.verdicts[199].reasons) == 199
    assert _decisions(full) == _decisions(res)


def test_decisions_are_the_same_with_and_without_the_cap_on_templated_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Templated lines with copies among them: exact repeats, one-typo copies, a one-typo copy of
    a line with an extra sentence (its original ranks past the fifth candidate, behind
    the lines that lack its number, so the number index finds it), and lines with an earlier
    line's number and a new word (kept). Capped and uncapped: the same verdicts but for the kept
    lines' notes, whose first five are the same."""
    import service.passages as sp

    lines: list[str] = []
    for i in range(120):
        lines.append(LONG.format(i=i) + (" Minutes follow by mail." if i % 10 == 0 else ""))
        if i >= 20 and i % 7 == 0:
            lines.append(LONG.format(i=(i - 20) // 10 * 10).replace("committee", "comittee"))  # of a line with "Minutes"
            lines.append(LONG.format(i=i - 3).replace("schedule", "schedlue"))  # a line without the extra sentence
            lines.append(lines[i // 2])  # an exact repeat
            lines.append(LONG.format(i=i - 5).replace("budget", "budget surplus"))  # a new word: kept
    res = PassageDeduper.with_default_guards().dedupe(lines)
    monkeypatch.setattr(sp, "MAX_NOTES", 10**9)
    full = PassageDeduper.with_default_guards().dedupe(lines)
    assert _decisions(full) == _decisions(res)
    stages = [v.stage for v in res.verdicts if not v.kept]
    assert stages.count("minhash") >= 20 and stages.count("exact") >= 10, stages
    # The copies of the extra-sentence lines were found past the named candidates.
    late = [(v.index, v.duplicate_of) for v in res.verdicts
            if v.stage == "minhash" and v.duplicate_of is not None and "Minutes" in lines[v.duplicate_of]]
    assert len(late) >= 10, late
    for i, j in late:
        p = Passage.build(lines[i])
        ranked = sorted((Passage.build(lines[k]).jaccard(p), -k) for k in res.keep if k < i)[::-1]
        assert [-k for _, k in ranked].index(j) >= 5, (i, j)
    for new, old in zip(res.verdicts, full.verdicts, strict=True):
        if new.kept and new.reasons != old.reasons:
            assert new.reasons[:5] == old.reasons[:5] and len(new.reasons) == 6
            n = int(re.match(r"kept: and (\d+) more", new.reasons[5]).group(1))  # type: ignore[union-attr]
            assert n == sum(1 for r in old.reasons[5:] if re.match(r"kept: #\d+ has 5-gram Jaccard", r))


def test_the_count_says_how_many_were_vetoed_and_by_which_guards() -> None:
    """Past the five named chunks a guard's veto is counted apart from a missing word or number."""
    from types import SimpleNamespace

    class VetoAll:
        def check(self, a: object, b: object) -> list[SimpleNamespace]:
            return [SimpleNamespace(blocked=True, guard="quantity", evidence="3 != 4")]

    base = LONG.format(i=7)
    typos = [("committee", "comittee"), ("discussed", "discused"), ("schedule", "schedlue"), ("staffing", "stafing"),
             ("quarter", "quartr"), ("budget", "budgte"), ("coming", "comming")]
    lines = [base, *(base.replace(a, b) for a, b in typos), LONG.format(i=8)]
    res = PassageDeduper(guards=VetoAll()).dedupe(lines)
    assert res.keep == list(range(9))
    last_typo = res.verdicts[7].reasons  # seven earlier lines, all vetoed
    assert len(last_typo) == 6 and all("vetoed: quantity: 3 != 4" in r for r in last_typo[:5]), last_typo
    assert re.fullmatch(r"kept: and 2 more earlier chunks with 5-gram Jaccard 0\.\d{3}( to 0\.\d{3})?: vetoed "
                        r"\(quantity\)", last_typo[5]), last_typo[5]
    # The line with another number lacks it in all eight, and no guard is asked past the five named.
    assert re.fullmatch(r"kept: and 3 more earlier chunks with 5-gram Jaccard 0\.\d{3}( to 0\.\d{3})? lack a word "
                        r"or number of this one", res.verdicts[8].reasons[5]), res.verdicts[8].reasons


def test_headline_dedupe_gives_records_back_as_the_passage_kind_does() -> None:
    """``dedupe(kind="headline")`` gave positions only (the eighth tour): a caller deduplicating
    records had to index back into its own list. Records in, records out, for both kinds."""
    from service.engine import Deduper

    records = [{"id": "r1", "text": "Harbour city opens new ferry terminal"},
               {"id": "r2", "text": "HARBOUR CITY OPENS NEW FERRY TERMINAL"},
               {"id": "r3", "text": "Mountain village reopens its only school"}]
    with Deduper.open(":memory:", model=None) as d:
        head = d.dedupe(records, kind="headline")
        plain = d.dedupe([r["text"] for r in records], kind="headline")
    assert head.selected == [records[0], records[2]]
    assert [(x.index, x.record["id"], x.duplicate_of, x.stage) for x in head.filtered] == [(1, "r2", 0, "exact")]
    assert head.filtered[0].reasons == tuple(head.decisions[1].reasons)
    assert plain.selected == [records[0]["text"], records[2]["text"]]
    # a stricter threshold keeps the records with the result
    assert head.rethreshold(0.99).selected == head.selected


def test_ingest_many_warns_once_when_records_repeat_an_id() -> None:
    """The library passed repeated ids silently (the command line warned): a record without a url
    is keyed by its id, so its repeat is a version of the first document, not a new one."""
    import warnings

    from service import RepeatedIdWarning  # beside Deduper and Article, to filter it by
    from service.engine import Deduper

    items = [{"id": "a", "title": "Harbour city opens new ferry terminal"},
             {"id": "a", "title": "Mountain village reopens its only school"}]
    with Deduper.open(":memory:", model=None) as d:
        with pytest.warns(RepeatedIdWarning, match=r"1 record repeats an earlier record's id \(the first: 'a'\)"):
            results = d.ingest_many(items)
        assert results[1].status == "new_version"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            d.ingest_many([{"id": "b", "title": "x y z"}, {"id": "c", "title": "p q r"}])
            d.ingest_many(items, warn_repeated_ids=False)


def test_a_kept_chunk_says_its_same_language_verdict_when_the_translation_stage_also_speaks() -> None:
    """The tenth tour: in a two-language batch a chunk with no same-language candidate gave only
    the translation stage's line ("#0 (ko) is not a translation of it"); alone, the same chunk says
    "kept: new content (no earlier kept chunk in its language ...)". Both stages looked; both say so."""
    # A Korean window sharing half its sentences with the English one: not a translation of it.
    res = PassageDeduper(AlignedEncoder()).dedupe([" ".join(EN[:4]), " ".join(KO[2:6])])
    assert res.keep == [0, 1]
    reasons = res.verdicts[1].reasons
    assert reasons[0].startswith("kept: new content (no earlier kept chunk in its language"), reasons
    assert len(reasons) == 2 and "not a translation" in reasons[1], reasons  # here the probe gate's line


@pytest.mark.parametrize(("old", "new"), [
    ("carries 350 passengers", "carries 40 passengers"),  # 40 is stated elsewhere in the chunk
    ("by a vote of 9 to 4", "by a vote of 4 to 9"),  # swapped
    ("by a vote of 9 to 4", "by a vote of 9 to 9"),
])
def test_a_figure_changed_to_another_number_of_the_chunk_is_new_content(old: str, new: str) -> None:
    """The tenth tour: the number check was a set, so a figure changed to a number the kept chunk
    states elsewhere ("350 passengers" -> "40 passengers" beside "40 bicycles") passed as a copy.
    A copy states the kept chunk's numbers in its order, as often."""
    kept = ("The council approved the plan by a vote of 9 to 4 on Tuesday. Each new ferry carries 350 passengers "
            "and 40 bicycles. The first route opens in April.")
    res = PassageDeduper().dedupe([kept, kept.replace(old, new)])
    assert res.keep == [0, 1], res.verdicts[1].reasons
    assert "another order" in res.verdicts[1].reasons[0], res.verdicts[1].reasons
    # A window inside it, or a copy with a typo, still states its numbers in order: still a copy.
    window = "Each new ferry carries 350 passengers and 40 bicycles. The first route opens in April."
    typo = kept.replace("Tuesday", "Tuesdy")
    assert PassageDeduper().dedupe([kept, window, typo]).keep == [0]
