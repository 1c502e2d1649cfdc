"""DomainAuth's own files under the results folder, beside the shared
:class:`authbench.paths.Layout` (a dataset's labels, instances and cells)."""

from authbench.paths import Layout


def secondary(layout: Layout) -> str:  # DomainAuth's secondary label columns
    return f"{layout.root}/domainauth/secondary.tsv"


def secondary_drops(layout: Layout) -> str:  # the rows and domains that gave no secondary label, by reason
    return f"{layout.root}/domainauth/secondary_drops.tsv"
