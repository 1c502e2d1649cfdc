"""What a RAGAuth config produces, decided once: its report files
(``rules/common.smk`` asks for them; the report step writes them). The
answer cells themselves are :func:`authbench.config.rag_plan`'s."""

from __future__ import annotations

TABLE_STEMS = ("table5_ragauth", "table5_topics")


def report_files(folder: str) -> list[str]:
    return [f"{folder}/accuracy.tsv"] + [f"{folder}/tables/{t}.{ext}" for t in TABLE_STEMS
                                         for ext in ("csv", "md", "tex")]
