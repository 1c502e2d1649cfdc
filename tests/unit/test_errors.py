"""Error messages: quoted content is cut to 200 characters (so an input error never prints a whole 4 MB
input as "found: ..." on one line)."""

import json

import pytest
from authbench.errors import QUOTE_LIMIT, InputError, excerpt
from authbench.studies.authority.domains import build_domains
from authbench.studies.ragauth.dataset import load_ragauth


def test_excerpt_short_values_are_quoted_whole():
    assert excerpt("maybe") == "'maybe'"
    assert excerpt("a, b", quote=False) == "a, b"
    assert excerpt(5) == "5" and excerpt(None) == "None"
    assert excerpt({"qid": "Q1", "docs": [1, 2]}) == '{"qid": "Q1", "docs": [1, 2]}'
    assert excerpt("x" * QUOTE_LIMIT) == repr("x" * QUOTE_LIMIT)


def test_excerpt_cuts_long_content_and_gives_its_length():
    assert QUOTE_LIMIT == 200
    assert excerpt("x" * 4_000_000) == repr("x" * 200) + "… (4,000,000 characters)"
    assert excerpt("y" * 201, quote=False) == "y" * 200 + "… (201 characters)"
    record = {"text": "z" * 500}
    assert excerpt(record) == json.dumps(record)[:200] + "… (512 characters)"  # {"text": "<500>"}: 12 + 500
    assert excerpt("abcdef", limit=3) == "'abc'… (6 characters)"


def test_a_json_file_given_as_the_url_table_is_not_printed_whole(tmp_path):
    """The reported case: a 4 MB one-line JSON file as domainauth.source; its 'header' was quoted whole."""
    path = tmp_path / "urls.csv"
    path.write_text(json.dumps([{"url": f"https://site{i}.example.com/page", "rank": i} for i in range(70_000)]))
    assert path.stat().st_size > 4_000_000
    with pytest.raises(InputError) as err:
        build_domains(path, None, {})
    message = str(err.value)
    assert message.startswith(f"{path}: line 1: missing column 'url' or 'domain' (found: [{{\"url\": "
                              f"\"https://site0.example.com")
    assert len(message) < len(str(path)) + 300 and "characters)" in message


def test_ragauth_record_error_quotes_an_excerpt(tmp_path):
    path = tmp_path / "rag.json"
    path.write_text(json.dumps([{"qid": "Q_1", "question": "Is it?", "ground_truth": "maybe " * 10_000,
                                 "documents": []}]))
    with pytest.raises(InputError) as err:
        load_ragauth(path)
    assert str(err.value).endswith("field 'ground_truth': expected 'Yes' or 'No', got "
                                   + repr(("maybe " * 40)[:200]) + "… (60,000 characters)")


def test_job_error_lines_from_failed_logs(tmp_path):
    from authbench.joblogs import error_lines, failed_logs, failure_summary

    cli = tmp_path / "cli.log"
    cli.write_text("2026 INFO authbench: cell x: 4 requests\nprogress 1/4\rprogress 4/4\n"
                   "error: invalid config:\n  config key 'a': wrong\n  config key 'b': wrong\n")
    crash = tmp_path / "crash.log"
    crash.write_text("INFO start\nTraceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'rho'\n")
    empty = tmp_path / "empty.log"
    empty.write_text("")
    assert error_lines(cli) == ["error: invalid config:", "  config key 'a': wrong", "  config key 'b': wrong"]
    assert error_lines(crash) == ["KeyError: 'rho'"]
    assert error_lines(empty) == ["(the log is empty)"]
    assert error_lines(tmp_path / "gone.log")[0].startswith("(log not readable: ")
    long = tmp_path / "long.log"
    long.write_text("error: " + "z" * 10_000 + "\n")
    assert error_lines(long) == ["error: " + "z" * 493 + "… (10,007 characters)"]
    # Snakemake's run log: a job error, and a group error's indented job entry naming two logs
    run_log = tmp_path / "run.snakemake.log"
    run_log.write_text(f"Error in rule a:\n    jobid: 1\n    log: {cli} (check log file(s) for error details)\n"
                       f"            log: {crash}, {empty} (check log file(s) for error details)\n"
                       f"    log: {cli} (check log file(s) for error details)\n")
    assert failed_logs([run_log, tmp_path / "none.log"]) == [str(cli), str(crash), str(empty)]
    assert failure_summary([run_log]).splitlines()[:3] == ["Failed job(s), the error in each log:", f"{cli}:",
                                                          "    error: invalid config:"]
    assert failure_summary([empty]) == ""


def test_status_filter_without_status_column_in_the_build_job(tmp_path):
    """A source a rule writes first is checked by the build job: the message says how to turn the filter off."""
    path = tmp_path / "labels.csv"
    path.write_text("domain,page_rank\na.gov,7\n")
    with pytest.raises(InputError) as err:
        build_domains(path, "ok", {})
    assert str(err.value) == (f"{path}: line 1: domainauth.status_filter is 'ok' but there is no column 'status' "
                              "(found: domain, page_rank); set 'domainauth.status_filter: null' to keep every row (an "
                              "overlay that does not set it keeps config.yaml's demo value)")
