"""AuthorityBench's published numbers that other published numbers
determine (the paper's ``derived`` module, :mod:`authbench.papers.derived`
runs it): Tables 9-12 repeat the main tables' PairJudge rho, Tables 3 and 5
print shares of a count, Table 8's Bias is a difference of two printed
columns (``resources/published/README.md``, "Recomputed numbers")."""

from __future__ import annotations

from authbench.papers.derived import DERIVED, with_parts

# the n of each table whose percentages are shares of a count (resources/published/README.md, "Granular")
SHARE_OF = {3: (5000, "the 5,000 pairs of each difficulty (Table 7: Hard/Easy 5k)"),
            5: (120, "RAGAuth's 120 queries (Table 7; §3.4)")}
# For a number printed twice with two values: which printing a claim's recomputed verdict takes, and why
# (relation -> (the tables whose printing is taken, the reason)).
_MAIN = ("the main table's printing: the body discusses Tables 1, 2, 4 and 6 and Appendix F repeats them; for "
         "Qwen3-8B PairRank the running text backs Table 1 (§4.2 (2): Qwen3-8B under PairJudge-PairRank "
         "\"performs considerably worse than same-sized models (Tables 1 & 2)\", as Table 1's 15.18 / 11.38 do and "
         "Table 9's 44.19 / 53.05 would not: 53.05 is above Llama-3-8B's 49.06)")
TAKEN = {"t9_12_pair_rank": ((1, 2, 4, 6), _MAIN), "t9_12_pair_score": ((1, 2, 4, 6), _MAIN)}
MAIN_TABLE = {9: 1, 10: 2, 11: 4, 12: 6}  # Tables 9-12 repeat these tables' PairJudge rho
REPEATS = {"PairRank": ("pair_rank", "PairRank"), "PointScore_Pt": ("pair_score", "PointScore")}


def relations(d) -> None:
    """AuthorityBench's relations, added to ``d`` (:class:`authbench.papers.derived.Derivations`)."""
    for table, main in MAIN_TABLE.items():  # Appendix F: PointScore_Pt "is the method we refer to as PointScore"
        for judge, (main_judge, name) in REPEATS.items():
            for key in d.select(table, judge=judge, metric="rho"):
                d.twice(key, with_parts(key, table=main, judge=main_judge), f"t9_12_{main_judge}",
                        f"printed twice: Table {table} {judge} rho = Table {main} PairJudge {name} rho")
    n, what = SHARE_OF[3]
    for key in d.select(3, metric="pair_accuracy"):
        d.share(key, n, "t3_granular", f"a share of {n} pairs, {what}: 100 k / {n} for an integer k")
    n, what = SHARE_OF[5]
    for key in d.select(5, metric="answer_accuracy"):
        d.share(key, n, "t5_granular", f"a share of {n} questions, {what}: 100 k / {n} for an integer k")
    for key in d.select(8, metric="bias"):  # caption: Bias = avg.(predicted - true PageRank)
        pred = with_parts(key, metric="mean_pred_score")
        # the caption's true mean PageRank, per category
        true = with_parts(key, metric="true_mean_pagerank", model="", judge="", context="")
        d.add(key, [(1.0, pred), (-1.0, true)], DERIVED, "t8_bias",
              "Bias = Pred - the category's true mean PageRank (Table 8 caption)")
