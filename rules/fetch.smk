# Fetchers: a researcher's own domains and entities -> labels and texts.
# Each rule exists only when its section is in the config's `fetch:`; its
# output is an ordinary file that `domainauth.source`, `domainauth.text` or
# `entityauth.datasets.<name>.source` can name, so one `snakemake` call runs
# fetch -> labels -> benchmark. Progress caches under results/fetch/cache/ let
# an interrupted fetch resume; delete one to fetch again from scratch.


include: "inputs/fetch.smk"


if "urllog" in FETCH:

    localrules:
        fetch_urllog,

    rule fetch_urllog:
        input:
            FETCH["urllog"]["input"],
        output:
            domains=f"{FR}/urllog/domains.tsv",
            drops=f"{FR}/urllog/drops.tsv",
        log:
            f"{LOGS}/fetch/urllog.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=lambda wildcards: fetch_params("urllog"),
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli fetch-urllog --input {input:q} --domains {output.domains:q} "
            "--drops {output.drops:q} --params {params.p:q} 2> {log:q}"


if "pagerank" in FETCH:

    localrules:
        fetch_pagerank,

    rule fetch_pagerank:
        input:
            domains=FETCH["pagerank"]["domains"],
            bulk=[FETCH["pagerank"]["bulk_file"]] if FETCH["pagerank"]["method"] == "bulk" else [],
        output:
            f"{FR}/pagerank/labels.csv",
        log:
            f"{LOGS}/fetch/pagerank.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=lambda wildcards: fetch_params("pagerank"),
            cache=f"{FR}/cache/pagerank_{FETCH['pagerank']['method']}.jsonl",
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli fetch-pagerank --domains {input.domains:q} --bulk-file {input.bulk:q} "
            "--out {output:q} --cache {params.cache:q} --params {params.p:q} 2> {log:q}"


if "webtext" in FETCH:

    localrules:
        fetch_webtext,

    rule fetch_webtext:
        input:
            FETCH["webtext"]["domains"],
        output:
            texts=f"{FR}/webtext/texts.tsv",
            failures=f"{FR}/webtext/failures.tsv",
        log:
            f"{LOGS}/fetch/webtext.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=lambda wildcards: fetch_params("webtext"),
            cache=f"{FR}/cache/webtext.jsonl",
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli fetch-webtext --domains {input:q} --texts {output.texts:q} "
            "--failures {output.failures:q} --cache {params.cache:q} --params {params.p:q} 2> {log:q}"


if "wikidata" in FETCH:

    localrules:
        fetch_sitelinks,

    rule fetch_sitelinks:
        input:
            lambda wildcards: FETCH["wikidata"]["datasets"][wildcards.entity_set]["entities"],
        output:
            entities=f"{FR}/wikidata/{{entity_set}}.jsonl",
            unresolved=f"{FR}/wikidata/{{entity_set}}_unresolved.tsv",
        log:
            f"{LOGS}/fetch/wikidata_{{entity_set}}.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_sitelinks_params,
            cache=f"{FR}/cache/wikidata_{{entity_set}}.jsonl",
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli fetch-sitelinks --entities {input:q} --out {output.entities:q} "
            "--unresolved {output.unresolved:q} --cache {params.cache:q} --params {params.p:q} 2> {log:q}"
