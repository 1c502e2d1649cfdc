"""The RAG self-preference paper's published numbers that other published
numbers determine (the paper's ``derived`` module, :mod:`authbench.papers.derived`
runs it): Table 1's averages, knowledge sums and shares of 700, Table 2's
Diff and its repeats in Tables 6-9, Table 3's averages
(``resources/published/README.md``, "Recomputed numbers")."""

from __future__ import annotations

from authbench.papers.derived import DERIVED, with_parts

# the n of each table whose percentages are shares of a count (resources/published/README.md, "Granular")
SHARE_OF = {1: (700, "the 700 sampled questions of each dataset (§3.1, line 78: \"we randomly selected "
                     "700 paired passages from each dataset\"; config/paper.yaml items: 700)")}
# For a number printed twice with two values: which printing a claim's recomputed verdict takes, and why
# (relation -> (the tables whose printing is taken, the reason)).
_APPENDIX = ("the appendix's printing (Tables 6-9): each of Table 2's own-FALSE cells that disagrees repeats "
             "another evaluator's column of Table 7/9 or none (NQ Gemini's 3.14±0.92 is Table 7's LLaMA column), a "
             "copy slip in Table 2, while Tables 6-9 print every author's column")
TAKEN = {"t2_human_repeat": ((6, 8), _APPENDIX), "t2_self_true_repeat": ((6, 8), _APPENDIX),
         "t2_self_false_repeat": ((7, 9), _APPENDIX)}
LEVELS = ("knowledge_no", "knowledge_partial", "knowledge_full")  # Table 1: 0, 1-4, 5 of 5 correct
RAW_TABLE = {("normal", "TRUE"): 6, ("normal", "FALSE"): 7, ("rag", "TRUE"): 8, ("rag", "FALSE"): 9}


def relations(d) -> None:
    """The self-preference paper's relations, added to ``d`` (:class:`authbench.papers.derived.Derivations`)."""
    def same_but(a, b, *names: str) -> bool:
        def rest(k):
            return k.table, k.metric, [part for part in k.named if part[0] not in names]
        return rest(a) == rest(b)

    for key in d.select(1, model="Average"):
        rows = [k for k in d.select(1, metric=key.metric) if same_but(k, key, "model") and k.model != "Average"]
        d.mean(key, rows, "t1_average", "Average = mean of the 5 models' rows of the dataset")
    for key in d.select(1):
        if key.metric in LEVELS:
            others = [with_parts(key, metric=level) for level in LEVELS if level != key.metric]
            d.add(key, [(-1.0, k) for k in others], DERIVED, "t1_knowledge_sum",
                  "No + Partial + Full = 100 (0, 1-4 or 5 of 5 answers correct)", constant=100.0)
    n, what = SHARE_OF[1]
    for key in d.select(1):
        if key.metric in LEVELS and key.model != "Average":
            d.share(key, n, "t1_granular", f"a share of {n} questions, {what}: 100 k / {n} for an integer k")
    for key in d.select(2, metric="diff_h_minus_m"):
        passage, prompt = key.part("passage"), key.part("prompt")
        human = with_parts(key, metric="mean_score", author="Human", passage="")
        d.add(key, [(1.0, human), (-1.0, with_parts(key, metric="mean_score"))], DERIVED, "t2_diff",
              f"Diff = Human-Written mean - the evaluator's own {passage} mean (Table 2)")
        if passage == "FALSE":  # the same Diff from the appendix: Table 6/8 Human - Table 7/9 own column
            true_table, false_table = RAW_TABLE[(prompt, "TRUE")], RAW_TABLE[(prompt, "FALSE")]
            appendix_human = with_parts(key, table=true_table, metric="mean_score", author="Human", passage="TRUE")
            appendix_own = with_parts(key, table=false_table, metric="mean_score", author=key.model, passage="FALSE")
            d.add(key, [(1.0, appendix_human), (-1.0, appendix_own)], DERIVED, "t2_false_diff_appendix",
                  f"FALSE Diff = Table {true_table} Human mean - Table {false_table} column of the evaluator itself")
    for key in d.select(2):
        if key.metric != "diff_h_minus_m":
            passage = key.part("passage") or "TRUE"  # the Human-Written column: TRUE passages
            table = RAW_TABLE[(key.part("prompt"), passage)]
            author = "Human" if key.part("author") == "Human" else key.model
            other = with_parts(key, table=table, author=author, passage=passage)
            if author == "Human":
                relation, rule = "t2_human_repeat", f"Table 2 Human-Written = Table {table} Human"
            else:
                relation = f"t2_self_{passage.lower()}_repeat"
                rule = f"Table 2 own {passage} = Table {table} column of the evaluator itself"
            d.twice(key, other, relation, f"printed twice: {rule} (same evaluator, dataset, prompt)")
    table3 = d.select(3)
    for key in table3:
        other = key.part("other")
        if key.model == "Average":  # over the 15 evaluator x dataset rows (the evaluator's own column: none)
            rows = [k for k in table3 if k.model != "Average" and k.part("other") == other and k.metric == key.metric]
            d.mean(key, rows, "t3_average", "Average = mean of the column's evaluator x dataset rows")
        elif other == "Aggregated":
            rows = [k for k in table3 if same_but(k, key, "other") and k.part("other") != "Aggregated"]
            d.mean(key, rows, "t3_aggregated", "Aggregated = mean of the row's 5 per-author cells")
