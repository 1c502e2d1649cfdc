"""Reading Snakemake's dry-run output in tests."""


def job_counts(out: str) -> dict[str, int]:
    """Rule name -> number of jobs, from the "Job stats:" table of a dry run."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Job stats:"))
    counts = {}
    for line in lines[start + 3:]:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        counts[parts[0]] = int(parts[1])
    return counts
