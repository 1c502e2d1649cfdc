"""Writes examples/my_scored_domains.csv: a SYNTHETIC stand-in, in the real
shape, for "my own domains with a continuous score and a second, binary
label" (docs/own-data.md; examples/PROVENANCE.md).

The shape is that of a news-domain study: one row per domain, a centrality
score in [0, 1] from a web host graph (power-law-like: most domains near 0,
one at exactly 1), a reliability label (reliable / unreliable) for a subset
only (empty for the rest), and columns the benchmark does not read. Nothing
here is real: the names are made up from word lists, the numbers drawn from
a seeded generator. Rerun it to get the same bytes:

    python examples/make_my_scored_domains.py
"""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

OUT = Path(__file__).with_name("my_scored_domains.csv")
N = 400                 # domains
LABELLED = 0.3          # share of domains with a reliability label
SEED = 16               # fixed: the same CSV on every run

FIRST = ["daily", "evening", "morning", "free", "true", "real", "metro", "city", "valley", "coast", "north",
         "south", "global", "local", "national", "first", "open", "new", "old", "fair"]
SECOND = ["herald", "post", "times", "tribune", "ledger", "gazette", "courier", "wire", "report", "observer",
          "journal", "chronicle", "bulletin", "digest", "signal", "voice", "record", "sentinel", "press", "review"]
TLDS = ["com", "com", "com", "net", "org", "co.uk", "de", "info", "news", "com.au"]
COUNTRIES = ["US", "GB", "DE", "AU", "IN", "CA", "FR", "NG"]


def rows() -> list[dict]:
    r = random.Random(SEED)
    names = sorted({f"{a}{b}" for a in FIRST for b in SECOND})
    r.shuffle(names)
    out = []
    for i, name in enumerate(names[:N]):
        # centrality: u^4 (most domains small), one at exactly 1.0, a few at exactly 0.0
        score = 1.0 if i == 0 else 0.0 if i % 97 == 5 else round(r.random() ** 4, 5)
        reliability = ""
        if r.random() < LABELLED:  # reliable more often the more central the domain
            p = 1 / (1 + math.exp(-(6 * score ** 0.25 - 3)))
            reliability = "reliable" if r.random() < p else "unreliable"
        out.append({"domain": f"{name}.{TLDS[i % len(TLDS)]}", "centrality": score, "reliability": reliability,
                    "host_count": 1 + int(500 * score + r.random() * 20), "country": r.choice(COUNTRIES),
                    "first_seen": f"20{r.randint(5, 23):02d}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"})
    return out


def main() -> None:
    with open(OUT, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["domain", "centrality", "reliability", "host_count", "country",
                                                "first_seen"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows())


if __name__ == "__main__":
    main()
