"""Dataset build: URL reduction, drop reasons, labels, bad input named errors."""

from collections import Counter

import pytest
from authbench.errors import InputError
from authbench.net import registered_domain
from authbench.studies.authority.domains import build_domains, read_texts

CATS = {"gov": {"suffixes": ["gov", "gov.cn"]}, "social": {"domains": ["zhihu.com"]}}


def write(tmp_path, text, name="urls.csv", mode="w"):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    "url, domain, reason",
    [
        ("http://www.crestonwood.com/router.php", "crestonwood.com", ""),
        ("https://foo.bar.gov.cn:8080/a?b=c", "bar.gov.cn", ""),
        ("WWW.Example.CO.UK", "example.co.uk", ""),
        ("http://xn--80ak6aa92e.com/", "xn--80ak6aa92e.com", ""),
        ("http://user:pw@news.bbc.co.uk/x", "bbc.co.uk", ""),
        ("http://192.168.1.1/login", None, "ip_host"),
        ("http://[2001:db8::1]/", None, "ip_host"),
        ("http://localhost/", None, "no_registered_domain"),
        ("http://co.uk", None, "no_registered_domain"),
        ("/", None, "unparsable_url"),
        ("", None, "unparsable_url"),
        ("http://exa mple.com/", None, "unparsable_url"),
        ("http://example.com:99999/", None, "unparsable_url"),
    ],
)
def test_registered_domain(url, domain, reason):
    got, _, why = registered_domain(url)
    assert (got, why) == (domain, reason)


def test_build_counts_every_drop(tmp_path):
    csv = (
        "url,page_rank,status\n"
        "http://a.example.com/x,3,legitimate\n"
        "http://www.example.com/y,3,legitimate\n"  # same domain, same label: kept once
        "http://b.conflict.org,2,legitimate\n"
        "http://c.conflict.org,5,legitimate\n"  # conflicting labels
        "http://google.com,10,legitimate\n"  # PageRank 10 excluded
        "http://10.0.0.1/a,0,legitimate\n"  # IP host
        "http://phish.xyz,0,phishing\n"  # status filter
        "http://whitehouse.gov,9,legitimate\n"
        "http://zhihu.com,6,legitimate\n"
        "/,4,legitimate\n"
    )
    domains, drops = build_domains(write(tmp_path, csv), "legitimate", CATS)
    assert [(d.domain, d.level, d.coarse, d.n_urls, d.category) for d in domains] == [
        ("example.com", 3, 1, 2, ""),
        ("whitehouse.gov", 9, 4, 1, "gov"),
        ("zhihu.com", 6, 3, 1, "social"),
    ]
    assert drops == Counter(
        status_filter=1, ip_host=1, conflicting_labels=1, pagerank_10=1, unparsable_url=1
    )


def test_texts_join_and_drop(tmp_path):
    csv = write(tmp_path, "url,page_rank\nhttp://a.com,1\nhttp://b.com,2\n")
    texts = write(tmp_path, "domain\ttext\na.com\t\"one  two\tthree four\"\n", name="t.tsv")  # a quoted tab
    got = read_texts(texts, max_words=2)
    assert got == {"a.com": "one two"}
    domains, drops = build_domains(csv, None, CATS, got)
    assert [d.domain for d in domains] == ["a.com"] and drops["no_text"] == 1


@pytest.mark.parametrize("header", ["Domain", " URL ", "domain"])
def test_the_domain_column_in_another_case_reads(tmp_path, header):
    path = write(tmp_path, f"{header},page_rank\nhttp://a.com,1\nb.org,3\n")
    domains, _ = build_domains(path, None, CATS)
    assert [(d.domain, d.level) for d in domains] == [("a.com", 1), ("b.org", 3)]


def test_two_domain_columns_in_other_cases_are_not_guessed(tmp_path):
    path = write(tmp_path, "Domain,DOMAIN,page_rank\na.com,b.com,1\n")
    with pytest.raises(InputError, match="missing column 'url' or 'domain'"):
        build_domains(path, None, CATS)


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "the file is empty"),
        ("address,page_rank\nhttp://a.com,1\n", "missing column 'url' or 'domain' (found: address, page_rank)"),
        ("url,Page_Rank\nhttp://a.com,1\n", "column names match exactly: 'Page_Rank' is not 'page_rank'"),
        ("url,rank\nhttp://a.com,1\n", "missing column 'page_rank'"),
        ("url,page_rank\nhttp://a.com,1\nhttp://b.com,high\n", "line 3, column 'page_rank': 'high' is not an integer"),
        ("url,page_rank\nhttp://a.com,4.5\n", "line 2, column 'page_rank': '4.5' is not an integer"),
        ("url,page_rank\nhttp://a.com,11\n", "line 2, column 'page_rank': '11' is out of range"),
        ("url,page_rank\nhttp://a.com,-1\n", "line 2, column 'page_rank': '-1' is out of range"),
        ("url,page_rank\nhttp://a.com\n", "line 2, column 'page_rank': missing value"),
        (b"url,page_rank\nhttp://a.com,1\nhttp://\xff\xfe.com,2\n", "line 3, byte 8: bytes that are not UTF-8"),
    ],
)
def test_bad_input_named_errors(tmp_path, content, message):
    path = write(tmp_path, content)
    with pytest.raises(InputError) as err:
        build_domains(path, None, CATS)
    assert str(path) in str(err.value)
    assert message in str(err.value)


def test_cli_bad_input_exits_2_without_traceback(tmp_path, capsys):
    from authbench.cli import main

    path = write(tmp_path, "url,page_rank\nhttp://a.com,11\n")
    code = main(["domainauth-build", "--source", str(path), "--labels", str(tmp_path / "l.tsv"),
                 "--drops", str(tmp_path / "d.tsv"), "--params", '{"categories": {}, "text_max_words": 100}'])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and "line 2, column 'page_rank'" in err


def test_real_demo_table_builds(root):
    domains, drops = build_domains(root / "resources/data/domainauth/urls_openpagerank.csv", "legitimate", CATS)
    levels = Counter(d.level for d in domains)
    assert sorted(levels) == list(range(10))
    assert drops["pagerank_10"] == 8 and drops["status_filter"] == 5715
    assert len(domains) == 3961


# --- Table 8 categories: the public-suffix family rule --------------------------------

FAMILY = {
    "gov": {"tlds": ["gov", "mil"], "labels": ["gov", "gob", "gouv", "go", "govt", "gv", "gub", "gc", "mil"],
            "exclude": ["go.it"]},
    "edu": {"tlds": ["edu"], "labels": ["edu", "ac"]},
    "social": {"domains": ["zhihu.com"]},
}


@pytest.mark.parametrize(
    "url, category",
    [
        ("https://www.whitehouse.gov/", "gov"),        # TLD gov
        ("http://army.mil", "gov"),                    # TLD mil
        ("http://www.vic.gov.au/x", "gov"),            # gov below the TLD, three-label suffix
        ("http://www.sa.gov.au", "gov"),
        ("http://president.gov.tw", "gov"),
        ("http://www.sat.gob.mx", "gov"),
        ("http://kemenkeu.go.id", "gov"),
        ("http://www.service-public.gouv.fr", "gov"),
        ("http://canada.gc.ca", "gov"),
        ("http://www.ac.gov.br", "gov"),               # Acre's government: gov is nearer the TLD than ac
        ("http://comune.go.it", ""),                   # Gorizia province: excluded
        ("http://www.mit.edu", "edu"),
        ("http://www.ox.ac.uk", "edu"),
        ("http://ui.ac.id", "edu"),
        ("http://school.nsw.edu.au", "edu"),
        ("http://www.tsinghua.edu.cn", "edu"),
        ("http://nic.ac", ""),                         # Ascension Island's TLD is not "academic"
        ("http://www.zhihu.com/q", "social"),          # listed domain
        ("http://example.com", ""),
        ("http://gov.example.com", ""),                # a subdomain is not a suffix label
    ],
)
def test_category_family_rule(url, category):
    from authbench.studies.authority.domains import category_of

    domain, suffix, _ = registered_domain(url)
    assert category_of(domain, suffix, FAMILY) == category


def test_category_exact_lists_win_and_keep_working():
    from authbench.studies.authority.domains import category_of

    cats = {"edu": {"suffixes": ["gov.br"]}, "gov": {"labels": ["gov"]}, "social": {"domains": ["x.gov"]}}
    assert category_of("a.gov.br", "gov.br", cats) == "edu"  # exact suffix before the family rule
    assert category_of("x.gov", "gov", cats) == "social"     # the TLD counts only through tlds
    assert category_of("y.gov", "gov", cats) == ""


def test_describe_categories_words_the_rule():
    from authbench.studies.authority.domains import describe_categories

    text = describe_categories(FAMILY)
    assert text.startswith("Categories by public suffix (the label nearest the TLD decides")
    assert "gov: TLD .gov/.mil or a suffix label below the TLD in {gov, gob, gouv, go, govt, gv, gub, gc, mil}" \
           " (except go.it)" in text
    assert "edu: TLD .edu or a suffix label below the TLD in {edu, ac}" in text
    assert "social: 1 listed domain." in text


def test_demo_category_membership_before_and_after(root):
    """The demo table (3,961 domains): the exact suffix lists of the first
    config found gov 44 / edu 70; the family rule of config.yaml finds 61 / 99
    (vic.gov.au, gov.tw, gob.mx, go.id, ac.id, nsw.edu.au, ...)."""
    import yaml

    source = root / "resources/data/domainauth/urls_openpagerank.csv"
    exact = {"gov": {"suffixes": ["gov", "gov.cn", "gov.uk", "gov.au", "gouv.fr", "gc.ca", "gov.in", "mil"]},
             "edu": {"suffixes": ["edu", "edu.cn", "ac.uk", "edu.au", "ac.jp", "ac.in"]}}
    before = Counter(d.category for d in build_domains(source, "legitimate", exact)[0])
    config = yaml.safe_load((root / "config.yaml").read_text())["domainauth"]["categories"]
    after = Counter(d.category for d in build_domains(source, "legitimate", config)[0])
    assert (before["gov"], before["edu"]) == (44, 70)
    assert (after["gov"], after["edu"], after["social"]) == (61, 99, 6)
    paper = yaml.safe_load((root / "config/paper.yaml").read_text())["domainauth"]["categories"]
    assert {k: v for k, v in paper.items() if k != "social"} == {k: v for k, v in config.items() if k != "social"}


# --- labels from any score column; secondary labels --------------------------------------------

from authbench.studies.authority.domains import (  # noqa: E402
    build_domain_labels,
    read_labels,
    read_secondary,
    write_labels,
)
from authbench.studies.authority.labels import label_spec, secondary_specs  # noqa: E402

SCORED = (
    "domain,centrality,reliability,country\n"
    "a.com,0.0,unreliable,US\n"
    "b.com,0.05,,DE\n"
    "c.org,0.25,reliable,US\n"
    "d.net,0.5,,\n"
    "e.co.uk,0.99,reliable,GB\n"
    "f.com,1.0,,US\n"
)


def test_continuous_score_binned_equal_width_top_included_or_dropped(tmp_path):
    path = write(tmp_path, SCORED)
    spec = label_spec({"column": "centrality", "binning": "equal_width"}, "page_rank", "integer")
    built = build_domain_labels(path, None, CATS, label=spec, secondary=["reliability"])
    assert [(d.domain, d.level, d.coarse, d.score) for d in built.domains] == [
        ("a.com", 0, 0, 0.0), ("b.com", 0, 0, 0.05), ("c.org", 2, 1, 0.25), ("d.net", 5, 2, 0.5),
        ("e.co.uk", 9, 4, 0.99), ("f.com", 9, 4, 1.0)]  # the maximum 1.0 shares level 9
    assert built.n_top == 1 and sum(built.drops.values()) == 0
    assert "pagerank_10" not in built.units and "above_top_level" not in built.units
    assert built.unused_columns == ["country"]  # reliability is the secondary step's
    drop = label_spec({"column": "centrality", "binning": "equal_width", "top": "drop"}, "page_rank", "integer")
    built = build_domain_labels(path, None, CATS, label=drop)
    assert [d.domain for d in built.domains][-1] == "e.co.uk" and built.drops == Counter(above_top_level=1)
    assert built.units["above_top_level"] == "domain" and "pagerank_10" not in built.units
    assert built.unused_columns == ["reliability", "country"]


def test_pagerank_10_exclusion_is_open_pageranks_only(tmp_path):
    csv = "url,page_rank,stars\nhttp://a.com,10,10\nhttp://b.com,3,3\nhttp://c.com,0,0\n"
    path = write(tmp_path, csv)
    default = build_domain_labels(path, None, CATS)
    assert [d.domain for d in default.domains] == ["b.com", "c.com"] and default.drops == Counter(pagerank_10=1)
    stars = build_domain_labels(path, None, CATS, label=label_spec({"column": "stars"}, "page_rank", "integer"))
    assert [(d.domain, d.level) for d in stars.domains] == [("a.com", 9), ("b.com", 3), ("c.com", 0)]
    assert stars.n_top == 1 and not stars.drops and "pagerank_10" not in stars.units


def test_log_binning_drops_nonpositive_scores(tmp_path):
    path = write(tmp_path, "domain,hits\na.com,0\nb.com,1\nc.com,10\nd.com,100\n")
    built = build_domain_labels(path, None, CATS, label=label_spec({"column": "hits", "binning": "log"}, "x", "y"))
    # [1, 100] log-spaced: 1 -> 0, 10 -> log10 1 of 2 -> level 5, 100 = max -> 9
    assert [(d.domain, d.level) for d in built.domains] == [("b.com", 0), ("c.com", 5), ("d.com", 9)]
    assert built.drops == Counter(nonpositive_score=1) and built.units["nonpositive_score"] == "domain"


@pytest.mark.parametrize(
    "content, message",
    [
        ("domain,centrality\na.com,high\n", "line 2, column 'centrality': 'high' is not a number"),
        ("domain,centrality\na.com,\n", "line 2, column 'centrality': missing value (expected a number)"),
        ("domain,score\na.com,1\n", "missing column 'centrality'"),
        ("domain,centrality\na.com,0.5\nb.com,0.5\n", "cannot bin the domains' scores (equal_width): all scores equal"),
    ],
)
def test_score_column_named_errors(tmp_path, content, message):
    path = write(tmp_path, content)
    spec = label_spec({"column": "centrality", "binning": "equal_width"}, "page_rank", "integer")
    with pytest.raises(InputError) as err:
        build_domain_labels(path, None, CATS, label=spec)
    assert str(path) in str(err.value) and message in str(err.value)


def test_labels_roundtrip_with_scores(tmp_path):
    spec = label_spec({"column": "centrality", "binning": "quantile"}, "page_rank", "integer")
    domains = build_domain_labels(write(tmp_path, SCORED), None, CATS, label=spec).domains
    write_labels(domains, tmp_path / "labels.tsv")
    assert read_labels(tmp_path / "labels.tsv") == domains
    assert (tmp_path / "labels.tsv").read_text().splitlines()[0].split("\t")[-1] == "score"


def test_secondary_labels_read_per_labelled_domain(tmp_path):
    path = write(tmp_path, SCORED + "http://www.c.org/page,0.25,reliable,US\n")  # a second URL of c.org, same label
    specs = secondary_specs({"labels": {"reliability": {"values": ["unreliable", "reliable"]}}})
    got = read_secondary(path, None, specs, ["a.com", "b.com", "c.org", "e.co.uk"])
    assert got == {"a.com": {"reliability": "unreliable"}, "b.com": {"reliability": ""},
                   "c.org": {"reliability": "reliable"}, "e.co.uk": {"reliability": "reliable"}}


@pytest.mark.parametrize(
    "extra, message",
    [
        ("g.com,0.3,Reliable,US\n", "line 8, column 'reliability': 'Reliable' is not one of ['unreliable', 'reliable']"),
        ("http://c.org/x,0.25,unreliable,US\n", "domain c.org: its rows carry different values of secondary label "
                                                "'reliability' (reliable, unreliable)"),
    ],
)
def test_secondary_labels_named_errors(tmp_path, extra, message):
    path = write(tmp_path, SCORED + extra)
    specs = secondary_specs({"labels": {"reliability": {"values": ["unreliable", "reliable"]}}})
    with pytest.raises(InputError) as err:
        read_secondary(path, None, specs, ["a.com", "c.org"])
    assert message in str(err.value)
    with pytest.raises(InputError, match="missing column 'trust'"):
        read_secondary(path, None, secondary_specs({"labels": {"trust": None}}), ["a.com"])


def test_build_log_says_why_pagerank_10_is_dropped(tmp_path, caplog):
    import logging

    from authbench.cli import main

    caplog.set_level(logging.INFO, logger="authbench")
    path = write(tmp_path, "url,page_rank,extra\nhttp://a.com,10,x\nhttp://b.com,3,y\nhttp://c.com,0,z\n")
    assert main(["domainauth-build", "--source", str(path), "--labels", str(tmp_path / "l.tsv"), "--drops",
                 str(tmp_path / "d.tsv"), "--bins", str(tmp_path / "b.tsv"), "--params", '{"categories": {}, "text_max_words": 100}']) == 0
    err = caplog.text
    assert "dropped 1 domain(s) with Open PageRank 10 (drop reason pagerank_10): the paper's scale is 0-9" in err
    assert "levels 0..9: 1 / 0 / 0 / 1 / 0 / 0 / 0 / 0 / 0 / 0" in err and "not read for the labels: extra" in err
    bins = (tmp_path / "b.tsv").read_text().splitlines()
    assert bins[0] == "level\tlower_edge\tupper_edge\tmin_score\tmax_score\titems"
    assert bins[-1] == "dropped\t\t\t10.0\t10.0\t1" and bins[4] == "3\t3.0\t3.0\t3.0\t3.0\t1"
