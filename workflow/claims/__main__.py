"""``python -m authbench.claims [--claims FILE ...] [--tsv FILE]``: both
papers' claims on their published tables, one line per claim (id, k of n,
verdict; the verdict on the recomputed numbers where it differs) and one
summary line per paper; ``--claims`` reads these claims files instead (each
names its paper: a claims file of your own, checked and tested before it goes
to ``resources/claims/``); ``--tsv`` also writes the verdict rows
(:func:`authbench.claims.published.verdict_rows`). A bad claims file is one
line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import sys

from authbench import papers as published_numbers
from authbench.claims.load import load_claims, load_paper_claims
from authbench.claims.published import paper_verdicts, summary_line, verdict_rows
from authbench.errors import PipelineError
from authbench.records import atomic_write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m authbench.claims", description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", nargs="+", metavar="FILE",
                        help="claims files to test instead of each paper's shipped one (each names its paper)")
    parser.add_argument("--tsv", help="write the verdict rows (one per claim) to this TSV file")
    args = parser.parse_args(argv)
    try:
        verdicts, summaries = [], []
        files = ([load_claims(path) for path in args.claims] if args.claims else
                 [load_paper_claims(paper) for paper in published_numbers.papers()])
        for claims in files:
            found = paper_verdicts(claims.paper, claims)
            verdicts += found
            summaries.append(summary_line(claims.title, found))
        for v in verdicts:
            marks = "" if v.marked is None else f"  (daggers: {v.marked} cells, {v.marked_holding} holding)"
            again = (f"  [recomputed: {v.recomputed_k} of {v.n}, {v.recomputed}]"
                     if v.recomputed and v.recomputed != v.verdict else "")
            print(f"{v.claim.id}\t{v.k} of {v.n}\t{v.verdict}{marks}{again}")
        print()
        print("\n".join(summaries))
        if args.tsv:
            with atomic_write(args.tsv) as out:
                verdict_rows(verdicts).to_csv(out, sep="\t", index=False)
    except PipelineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
