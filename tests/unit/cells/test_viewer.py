"""The sample viewer's data writer (authbench.cells.viewer): the catalog's
counts, chunking, gzip+base64 packing of the index and chunks, script-safe escaping, non-UTF-8 remnants kept visible,
judge-validity flags, and a missing or damaged samples file shown as an
unavailable cell with its reason while the other cells are written."""

import base64
import gzip
import json
import re

import pytest
from authbench.cells import viewer
from authbench.cells.viewer import cell_parts, front_coded, js_json, packed, read_flags, write_viewer
from authbench.cells.samples import write_samples
from wfrun import ROOT, cell_samples, write_twins_example

ASSETS = ROOT / "report" / "viewer"
EVIL = "</script><script>alert(1)</script> & \u2028"


def unpack(text: str):
    """viewer.js's reading of a packed payload: base64 -> gunzip -> JSON."""
    return json.loads(gzip.decompress(base64.b64decode(text, validate=True)).decode("utf-8"))


def load_js(path, call: str):
    """The arguments of the one ``ABV.<call>(...)`` a data file holds, as JSON;
    the index's and a chunk's last argument (a base64 string) unpacked."""
    text = path.read_text(encoding="utf-8")
    m = re.fullmatch(rf"ABV\.{call}\((.*)\);\n", text, re.DOTALL)
    assert m, text[:200]
    args = json.loads(f"[{m.group(1)}]")
    if call != "catalog":
        assert re.fullmatch(r"[A-Za-z0-9+/]*=*", args[-1])
        args[-1] = unpack(args[-1])
    return args


def decoded(front_coded: list) -> list[str]:
    """viewer.js's decoding of a chunk's prompts."""
    out, before = [], ""
    for k, rest in front_coded:  # k counts UTF-16 code units
        before = before.encode("utf-16-le")[:2 * k].decode("utf-16-le") + rest
        out.append(before)
    return out


def test_front_coding_round_trips():
    texts = ["You are a judge.\nA: x.com", "You are a judge.\nA: y.org", "", "Other", "Other and more",
             "\U0001F600 emoji", "\U0001F600 emojis"]
    coded = front_coded(texts)
    assert coded[1] == [20, "y.org"] and coded[4] == [5, " and more"] and coded[6] == [8, "s"]
    assert decoded(coded) == texts


def cell_rows(n: int, fail_every: int = 4) -> list[dict]:
    return [{"request_id": f"r{i}", "try": 0, "prompt": f"prompt {i % 3}", "reply": EVIL if i == 0 else f"reply {i}",
             "status": "unparsed" if i % fail_every == 1 else "ok", "value": None if i % fail_every == 1 else [i, 1],
             "gold": [2, 1], "correct": None if i % 5 == 0 else i % 2 == 0, "cached": i < 3} for i in range(n)]


@pytest.fixture
def study(tmp_path):
    root = tmp_path / "domainauth"
    good = root / "cells" / "m1" / "point" / "wo_text" / "fine"
    write_samples(cell_rows(2500), good / "samples.parquet", {"cell": "domainauth/m1/point/wo_text/fine"})
    (good / "responses.jsonl").write_text("")
    missing = root / "cells" / "m1" / "point" / "wo_text" / "coarse"
    missing.mkdir(parents=True)
    (missing / "responses.jsonl").write_text("")
    damaged = root / "cells" / "m2" / "list_rank" / "wo_text" / "fine"
    damaged.mkdir(parents=True)
    (damaged / "responses.jsonl").write_text("")
    (damaged / "samples.parquet").write_bytes(b"PAR1 truncated")
    return root


def test_catalog_counts_chunks_and_unavailable_cells(study, tmp_path, monkeypatch):
    monkeypatch.setattr(viewer, "CHUNK", 1000)
    costs = tmp_path / "costs.csv"
    costs.write_text("benchmark,model,judge,context,setting,flag,why\n"
                     "domainauth,m1,point,wo_text,fine,†,position-constant share 0.95 >= 0.9\n"
                     "domainauth,m2,list_rank,wo_text,fine,,\n")
    out = tmp_path / "viewer"
    samples = cell_samples(study)
    assert len(samples) == 3
    catalog = write_viewer(out, samples, study, "DomainAuth", ASSETS, read_flags(costs))
    assert load_js(out / "data" / "catalog.js", "catalog") == [catalog]
    assert sorted(p.name for p in out.iterdir()) == ["data", "index.html", "viewer.css", "viewer.js"]
    cells = {c["cell"]: c for c in catalog["cells"]}
    good = cells["cells/m1/point/wo_text/fine"]
    rows = cell_rows(2500)
    assert good["available"] and good["chunks"] == 3
    assert good["counts"] == {"samples": 2500, "parse_failures": sum(r["status"] != "ok" for r in rows),
                              "correct": sum(r["correct"] is True for r in rows),
                              "wrong": sum(r["correct"] is False for r in rows), "cached": 3}
    assert good["flags"] == ["position-constant share 0.95 >= 0.9"]
    assert (good["model"], good["judge"], good["context"], good["setting"]) == ("m1", "point", "wo_text", "fine")
    missing, damaged = cells["cells/m1/point/wo_text/coarse"], cells["cells/m2/list_rank/wo_text/fine"]
    assert not missing["available"] and "no samples file" in missing["reason"]
    assert not damaged["available"] and "not a readable Parquet file" in damaged["reason"]
    assert damaged["flags"] == [] and not (out / "data" / damaged["id"]).exists()
    # the light index: one entry per sample; the chunks: 1000 samples each, prompts stored once per chunk
    cid, index = load_js(out / "data" / good["id"] / "index.js", "index")
    assert cid == good["id"] and index["n"] == 2500 and len(index["status"]) == 2500
    assert [index["statuses"][s] for s in index["status"][:3]] == ["ok", "unparsed", "ok"]
    assert index["correct"][:3] == [-1, 0, 1] and index["cached"][:4] == [1, 1, 1, 0]
    sizes = []
    for k in range(3):
        cid, c, chunk = load_js(out / "data" / good["id"] / f"chunk_{k}.js", "chunk")
        assert (cid, c) == (good["id"], k)
        chunk["prompts"] = decoded(chunk["prompts"])
        assert sorted(chunk["prompts"]) == ["prompt 0", "prompt 1", "prompt 2"]
        sizes.append(len(chunk["rows"]))
        first = chunk["rows"][0]
        assert chunk["prompts"][first["p"]] == rows[k * 1000]["prompt"] and first["value"] == rows[k * 1000]["value"]
    assert sizes == [1000, 1000, 500]
    # the reply holding a script is in the chunk, packed so it cannot close the script tag
    text = (out / "data" / good["id"] / "chunk_0.js").read_text(encoding="utf-8")
    assert "</script>" not in text and "<" not in text and "\u2028" not in text
    assert load_js(out / "data" / good["id"] / "chunk_0.js", "chunk")[2]["rows"][0]["reply"] == EVIL


def test_chunk_file_decodes_to_the_exact_rows(study, tmp_path, monkeypatch):
    monkeypatch.setattr(viewer, "CHUNK", 1000)
    catalog = write_viewer(tmp_path / "viewer", cell_samples(study), study, "DomainAuth", ASSETS)
    good = next(c for c in catalog["cells"] if c["available"])
    rows = cell_rows(2500)
    for k in range(good["chunks"]):
        path = tmp_path / "viewer" / "data" / good["id"] / f"chunk_{k}.js"
        m = re.fullmatch(rf'ABV\.chunk\("{good["id"]}",{k},"([A-Za-z0-9+/]*=*)"\);\n', path.read_text(encoding="ascii"))
        chunk = json.loads(gzip.decompress(base64.b64decode(m[1])).decode("utf-8"))  # base64 -> gunzip -> JSON
        prompts = decoded(chunk["prompts"])
        assert [{"prompt": prompts[r["p"]], **{f: r[f] for f in ("reply", "value", "gold")}} for r in chunk["rows"]] \
            == [{f: r[f] for f in ("prompt", "reply", "value", "gold")} for r in rows[k * 1000:(k + 1) * 1000]]
    assert packed({"a": 1}) == packed({"a": 1})  # no timestamp in the gzip header: rebuilds give the same bytes


def test_packed_keeps_escapes_and_non_utf8_remnants():
    raw = b"caf\xe9 ".decode("utf-8", "surrogateescape") + EVIL
    text = packed({"reply": raw})
    assert re.fullmatch(r"[A-Za-z0-9+/]*=*", text)
    plain = gzip.decompress(base64.b64decode(text)).decode("utf-8")  # the lone surrogate travels as \udce9
    assert plain == js_json({"reply": raw}) and json.loads(plain)["reply"] == raw


def test_js_json_escapes_markup_and_keeps_non_utf8_visible():
    raw = b"caf\xe9 <b>".decode("utf-8", "surrogateescape")  # a lone surrogate U+DCE9
    text = js_json({"reply": raw, "bad": "\ufffd", "x": EVIL})
    assert all(ch not in text for ch in "<>&\u2028\u2029") and "\udce9" not in text
    assert "\\udce9" in text and "\ufffd" in text  # the remnant is escaped, not dropped
    assert json.loads(text)["reply"] == raw


def test_cell_parts_of_every_study_layout():
    assert cell_parts(["cells", "m", "point", "w_text", "pairs"]) == {
        "model": "m", "judge": "point", "context": "w_text", "setting": "pairs"}
    assert cell_parts(["songs", "cells", "m", "list_rank", "wo_text", "fine"])["setting"] == "songs/fine"
    assert cell_parts(["cells", "m", "rerank", "normal"]) == {
        "model": "m", "judge": "rerank", "context": "normal", "setting": "-"}
    assert cell_parts(["generated", "m"]) == {"model": "m", "judge": "generated", "context": "-", "setting": "-"}


def test_viewer_entry_and_contents_row(tmp_path):
    from authbench.render.catalog import VIEWER_CAPTION, VIEWER_TITLE, contents_md, viewer_entry
    from authbench.studies.ragauth.outputs import RAGAUTH

    entry = viewer_entry(RAGAUTH, str(tmp_path))
    assert entry["htmlindex"] == "index.html" and entry["category"] == "RAGAuth"
    assert entry["labels"] == {"study": "RAGAuth", "file": VIEWER_TITLE}
    assert VIEWER_CAPTION in open(entry["caption"], encoding="utf-8").read()
    contents = contents_md(RAGAUTH, {"written": [], "skipped": {}})
    assert f"| {VIEWER_TITLE} | [viewer/index.html](viewer/index.html) | written by its own step |" in contents


def test_a_cell_shown_in_both_orders_gets_each_samples_outcome_and_its_twins_row(tmp_path):
    """A pair cell with its reversed job (``reversed/``) and the twins table: the first showing's index holds
    each sample's outcome and the row of its twin (a retried twin: its last try); the second showing is a
    cell of its own; a request without a twin gets none."""
    root, paths = write_twins_example(tmp_path)
    out = tmp_path / "viewer"
    catalog = write_viewer(out, paths, root, "DomainAuth", ASSETS)
    cells = {c["cell"]: c for c in catalog["cells"]}
    assert set(cells) == {"cells/m1/pair_rank/wo_text/pairs", "cells/m1/pair_rank/wo_text/pairs/reversed"}
    first, second = cells["cells/m1/pair_rank/wo_text/pairs"], cells["cells/m1/pair_rank/wo_text/pairs/reversed"]
    assert first["twin"] == second["id"] and "twin" not in second
    assert second["setting"] == "pairs/reversed"
    _, index = load_js(out / "data" / first["id"] / "index.js", "index")
    assert index["outcome"] == ["conflict", "consistent", ""]
    assert index["twin_row"] == [2, 3, -1]  # p0's last try is row 2 of the reversed samples; p2 has no twin row
    _, plain = load_js(out / "data" / second["id"] / "index.js", "index")
    assert "outcome" not in plain
