"""RAGAuth's own files under the results folder, beside the shared
:class:`authbench.paths.Layout` (its cells and report)."""

from authbench.paths import Layout


def built(layout: Layout) -> str:  # ragauth.build's RAGAuth file
    return f"{layout.root}/ragauth/build/ragauth.json"


def questions(layout: Layout) -> str:
    return f"{layout.root}/ragauth/questions.jsonl"


def dataset(layout: Layout) -> str:
    return f"{layout.root}/ragauth/dataset.tsv"


def prior(layout: Layout, strategy: str) -> str:
    return f"{layout.root}/ragauth/scores/{strategy}.jsonl"
