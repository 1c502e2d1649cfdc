# AuthorityBench's DomainAuth and EntityAuth (the study registry's
# `domainauth` and `entityauth`, authbench.studies.authority.study): the grid
# of judge cells, the fetchers of own data, the labeled datasets and their
# instances, the judge cells and their evaluation, and the two reports.
from authbench.studies.authority.grid import entity_datasets, entity_settings, grid
from authbench.studies.authority.outputs import check_labels, has_secondary

check_labels(config)
DA, EA = P.study("domainauth"), P.study("entityauth")
GRID = grid(config)  # the judge cells (authbench.studies.authority.grid.GridEntry)
ENTITY_DATASETS = entity_datasets(config)
ENTITY_SETTINGS = entity_settings(config)  # fine (N=10) and, unless coarse_source is rescore, coarse (N=5)
# Secondary labels (domainauth.secondary): a step of their own, so naming one reruns no judge cell
SECONDARY = has_secondary(config)


def entity_config(name):
    return config["entityauth"]["datasets"][name]


include: "fetch.smk"
include: "datasets.smk"
include: "judge.smk"
include: "authority_reports.smk"
