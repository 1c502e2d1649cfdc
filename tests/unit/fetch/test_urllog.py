"""URL-log ingestion: lines and session tables -> registered domains, visits, drops (hand-counted)."""

from __future__ import annotations

from collections import Counter

import pytest
from authbench.errors import InputError
from authbench.fetch.urllog import ingest_urllog, resolve_format, write_domains, write_drops

LINES = (
    "# visited URLs, exported 2024-05-01\n"
    "https://www.example.com/a\n"
    "http://example.com:8080/a\r\n"
    "example.com/b\n"
    "\n"
    "https://news.bbc.co.uk/story?id=1\n"
    "   # an indented comment\n"
    "https://www.bbc.co.uk/\n"
    "http://192.168.0.1/admin\n"
    "[::1]:8080\n"
    "localhost:3000\n"
    "   \n"
    "http://exa mple.com/\n"
    "https://www.example.com/a\n"
    "co.uk\n"
    "alpha.net/x\n"
    "alpha.net/x"  # no final newline
)

SESSIONS = (
    "session_id\tquery\tclicked_url\tresult_urls\n"
    "1\tweather beijing\thttp://www.weather.com.cn/beijing\t"
    "http://www.weather.com.cn/beijing http://tianqi.baidu.com/ https://www.accuweather.com/en/cn\n"
    '2\t"quoted query\t\thttps://zhidao.baidu.com/q/1   https://baike.baidu.com/item/x\n'
    "3\tlocal\thttp://10.0.0.1/\t\n"
    "\n"
    "4\tnews\thttps://news.sina.com.cn/a https://news.sina.com.cn/a\thttps://news.sina.com.cn/a\n"
)


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def test_lines_file_hand_counted(tmp_path):
    rows, drops = ingest_urllog(write(tmp_path, "visits.txt", LINES))
    assert rows == [
        {"domain": "example.com", "visits": 4, "distinct_urls": 3},
        {"domain": "alpha.net", "visits": 2, "distinct_urls": 1},  # ties: by domain
        {"domain": "bbc.co.uk", "visits": 2, "distinct_urls": 2},
    ]
    assert drops == Counter(comment=2, blank=2, ip_host=2, no_registered_domain=2, unparsable_url=1)


def test_tsv_session_file_with_two_url_columns_and_multi_url_cells(tmp_path):
    path = write(tmp_path, "sessions.tsv", SESSIONS)
    rows, drops = ingest_urllog(path, url_columns=("clicked_url", "result_urls"))
    assert rows == [
        {"domain": "baidu.com", "visits": 3, "distinct_urls": 3},
        {"domain": "sina.com.cn", "visits": 3, "distinct_urls": 1},
        {"domain": "weather.com.cn", "visits": 2, "distinct_urls": 1},
        {"domain": "accuweather.com", "visits": 1, "distinct_urls": 1},
    ]
    assert drops == Counter(empty_cell=2, ip_host=1, blank=1)
    # one column only
    rows, drops = ingest_urllog(path, url_columns=("clicked_url",))
    assert [(r["domain"], r["visits"]) for r in rows] == [("sina.com.cn", 2), ("weather.com.cn", 1)]
    assert drops == Counter(empty_cell=1, ip_host=1, blank=1)


def test_csv_with_quotes_a_custom_separator_and_a_bom(tmp_path):
    text = (
        "\ufeffid,urls,note\n"
        '1,"https://a.example.com/x; https://b.example.com/y",plain\n'
        '2,https://c.org/z,"a note, with a comma\nand a newline"\n'
        "3,;,empty\n"
    )
    rows, drops = ingest_urllog(write(tmp_path, "log.csv", text), url_columns=("urls",), separator=";")
    assert rows == [{"domain": "example.com", "visits": 2, "distinct_urls": 2},
                    {"domain": "c.org", "visits": 1, "distinct_urls": 1}]
    assert drops == Counter(empty_cell=1)


def test_missing_url_column_names_the_column(tmp_path):
    path = write(tmp_path, "sessions.tsv", SESSIONS)
    with pytest.raises(InputError, match=r"sessions\.tsv: line 1, column 'clicked_urls': missing URL column "
                                         r"\(found: session_id, query, clicked_url, result_urls\)"):
        ingest_urllog(path, url_columns=("result_urls", "clicked_urls"))


def test_non_utf8_names_line_and_byte(tmp_path):
    path = write(tmp_path, "visits.txt", b"https://a.com/\n# ok\nhttps://b.com/caf\xe9\n")
    with pytest.raises(InputError, match=r"visits\.txt: line 3, byte 18: bytes that are not UTF-8"):
        ingest_urllog(path)


@pytest.mark.parametrize("name, content, line, fields", [
    ("s.tsv", "url\tq\nhttps://a.com/\tx\nhttps://b.com/\n", 3, 1),
    ("s.csv", 'url,note\nhttps://a.com/,"two\nlines"\nhttps://b.com/,x,extra\n', 4, 3),  # counts physical lines
])
def test_wrong_field_count_names_the_line(tmp_path, name, content, line, fields):
    with pytest.raises(InputError, match=rf"{name}: line {line}: {fields} fields, header has 2"):
        ingest_urllog(write(tmp_path, name, content))


def test_empty_table_has_no_header(tmp_path):
    with pytest.raises(InputError, match=r"e\.tsv: line 1: no header row"):
        ingest_urllog(write(tmp_path, "e.tsv", ""))


def test_format_resolution():
    assert [resolve_format(p) for p in ("a.TSV", "b.csv", "c.txt", "d")] == ["tsv", "csv", "lines", "lines"]
    assert resolve_format("a.tsv", "lines") == "lines"
    with pytest.raises(ValueError, match="unknown URL-log format 'json'"):
        resolve_format("a.json", "json")


def test_lines_format_forced_on_a_tsv_name(tmp_path):
    rows, drops = ingest_urllog(write(tmp_path, "list.tsv", "url\nhttps://a.com/\n"), fmt="lines")
    assert rows == [{"domain": "a.com", "visits": 1, "distinct_urls": 1}]
    assert drops == Counter(no_registered_domain=1)  # the word "url" is no domain


def test_writers(tmp_path):
    rows, drops = ingest_urllog(write(tmp_path, "visits.txt", LINES))
    write_domains(rows, tmp_path / "domains.tsv")
    write_drops(drops + Counter(odd_reason=1), tmp_path / "drops.tsv")
    assert (tmp_path / "domains.tsv").read_text() == (
        "domain\tvisits\tdistinct_urls\nexample.com\t4\t3\nalpha.net\t2\t1\nbbc.co.uk\t2\t2\n")
    assert (tmp_path / "drops.tsv").read_text() == (
        "reason\tcount\nblank\t2\ncomment\t2\nempty_cell\t0\nunparsable_url\t1\nip_host\t2\n"
        "no_registered_domain\t2\nodd_reason\t1\n")
