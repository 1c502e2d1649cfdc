# Input and params functions of rules/fetch.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
FR = P.fetch
FETCH = config.get("fetch", {})


def fetch_params(section, **extra):
    keep = {
        k: v for k, v in FETCH[section].items() if k not in ("input", "domains", "entities", "datasets", "bulk_file")
    }
    return _json({**keep, "user_agent": FETCH.get("user_agent"), "http": FETCH.get("http", {}), **extra})


def get_sitelinks_params(wildcards):
    spec = FETCH["wikidata"]["datasets"][wildcards.entity_set]
    return fetch_params("wikidata", question_pattern=spec.get("question_pattern"))
