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
    texts = write(tmp_path, "domain\ttext\na.com\tone  two\tthree four\n", name="t.tsv")
    got = read_texts(texts, max_words=2)
    assert got == {"a.com": "one two"}
    domains, drops = build_domains(csv, None, CATS, got)
    assert [d.domain for d in domains] == ["a.com"] and drops["no_text"] == 1


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "the file is empty"),
        ("address,page_rank\nhttp://a.com,1\n", "missing column 'url'"),
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
                 "--drops", str(tmp_path / "d.tsv"), "--params", '{"categories": {}}'])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and "line 2, column 'page_rank'" in err


def test_real_demo_table_builds(root):
    domains, drops = build_domains(root / "resources/data/domainauth/urls_openpagerank.csv", "legitimate", CATS)
    levels = Counter(d.level for d in domains)
    assert sorted(levels) == list(range(10))
    assert drops["pagerank_10"] == 8 and drops["status_filter"] == 5715
    assert len(domains) == 3961
