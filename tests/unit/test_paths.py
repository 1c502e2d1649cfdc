"""The results layout (authbench.paths) and a model's file (authbench.llm.models): one declaration each."""

import pytest
from authbench.studies.authority.grid import GridEntry
from authbench.llm.models import is_served, model_file
from authbench.paths import Layout, cell_id, report_outdir

P = Layout("res")


def test_a_cell_folder_and_its_id_name_the_same_cell_for_every_study():
    assert P.cell("domainauth", "m", "point", "wo_text", "fine") == "res/domainauth/cells/m/point/wo_text/fine"
    assert cell_id("domainauth", "m", "point", "wo_text", "fine") == GridEntry("domainauth", "m", "point", "wo_text",
                                                                          "fine").id
    assert P.cell("ragauth", "m", "answer", "relevance", "k3") == "res/ragauth/cells/m/answer/relevance/k3"
    assert P.cell("selfpref/{spds}", "{model}", "knowledge") == "res/selfpref/{spds}/cells/{model}/knowledge"


def test_report_outdir_is_the_folder_above_tables_and_figures():
    assert report_outdir(["r/report/accuracy.tsv", "r/report/tables/t.csv", "r/report/figures/f.png"]) == "r/report"
    assert report_outdir(["r/statistics/tables/t7.csv", "r/statistics/tables/t7.md"]) == "r/statistics"
    with pytest.raises(ValueError, match="more than one folder"):
        report_outdir(["a/x.tsv", "b/y.tsv"])


@pytest.mark.parametrize("spec,isdir,expected", [
    ({"engine": "llamacpp", "model": "package:gemma"}, False, "res/models/m.gguf"),
    ({"engine": "llamacpp", "model": "my.gguf"}, False, "my.gguf"),
    ({"engine": "vllm", "model": "parts:qwen"}, False, "res/models/m-hf"),
    ({"engine": "vllm", "model": "local/folder"}, True, "local/folder"),
    ({"engine": "vllm", "model": "org/hub-id"}, False, None),
    ({"engine": "openai", "model": "gpt-4o-mini"}, False, None),
])
def test_model_file(spec, isdir, expected):
    assert model_file("m", spec, P, isdir=lambda _: isdir) == expected


def test_only_a_vllm_model_with_serve_is_served():
    assert is_served({"engine": "vllm", "vllm": {"serve": True}})
    assert not is_served({"engine": "vllm", "vllm": {"serve": False}})
    assert not is_served({"engine": "vllm"})
    assert not is_served({"engine": "llamacpp", "vllm": {"serve": True}})
