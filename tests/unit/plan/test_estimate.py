"""Inputs the plan estimates (authbench.studies.authority.plan, authbench.studies.ragauth.plan): stand-in homepage
texts of exactly the truncation limit, and when an input counts as absent."""

from authbench.studies.authority.plan import stand_in_text, texts_missing
from authbench.studies.ragauth.plan import RAG_DOCS, RAG_QUESTIONS, stand_in_ragauth


def test_a_stand_in_text_has_exactly_the_limit_in_words():
    for words in (3, 5, 100, 250):
        text = stand_in_text("example.org", words)
        assert len(text.split()) == words and "example.org" in text.split()


def test_texts_count_as_missing_only_when_w_text_needs_them():
    config = {"studies": ["domainauth"], "contexts": ["wo_text", "w_text"], "domainauth": {"text": "t.tsv"}}
    assert texts_missing(config, lambda p: False)
    assert not texts_missing(config, lambda p: True)
    assert not texts_missing({**config, "contexts": ["wo_text"]}, lambda p: False)


def test_the_stand_in_release_reaches_the_document_cut():
    from pathlib import Path

    import yaml

    config = yaml.safe_load((Path(__file__).resolve().parents[3] / "config.yaml").read_text())
    records = stand_in_ragauth(config, 13)
    assert len(records) == RAG_QUESTIONS and {len(r["documents"]) for r in records} == {RAG_DOCS}
    cut = config["ragauth"]["doc_tokens"]
    assert min(len(d["doc_text"].split()) for r in records for d in r["documents"]) >= cut
