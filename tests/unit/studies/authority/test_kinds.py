"""AuthorityBench's judge job kinds (authbench.studies.authority.kinds): one job per grid entry, its folder the
cell's (an EntityAuth dataset's `/` kept before the model), its params JSON written out by hand, the reversed job
in the cell's folder with its own id and order, and the requests the step sends the judge's own."""

import json

import pytest
from authbench.config import load_config
from authbench.paths import Layout
from authbench.studies.authority.grid import GridEntry, grid, reversed_entries
from authbench.studies.authority.kinds import JUDGE, JUDGE_REVERSED, cell_files, judge_job
from authbench.studies.authority.prompts import load_template
from authbench.studies.authority.requests import build_requests
from authbench.studies.registry import ROOT


@pytest.fixture
def config():
    cfg = load_config(ROOT / "config.yaml")
    cfg["models"] = {"gemma3-270m": {"engine": "instant", "model": "instant-gemma", "threads": 2}}
    cfg.update(results="res", cache=None, constrained_decoding=True, expected_scores=True, seed=7,
               studies=["domainauth", "entityauth"], judges=["point", "pair_rank", "list_score"],
               contexts=["wo_text"], settings=["fine", "pairs"], position_consistency=True)
    return cfg


def test_one_job_per_grid_entry_in_the_cells_folder(config):
    layout, entries = Layout("res"), grid(config)
    jobs = JUDGE.jobs(config)
    assert len(jobs) == len(entries) > 0 and any(j["dataset"].startswith("entityauth/") for j in jobs)
    for job, entry in zip(jobs, entries):
        parts = (entry.dataset, entry.model, entry.judge, entry.context, entry.setting)
        assert JUDGE.cell(job) == entry.id and JUDGE.folder(layout, job) == layout.cell(*parts)
    both = reversed_entries(config, entries)
    assert {e.judge for e in both} == {"pair_rank", "list_score"}  # the point judge shows one order only
    assert [JUDGE_REVERSED.cell(j) for j in JUDGE_REVERSED.jobs(config)] == [e.id + "/reversed" for e in both]
    entity = next(j for j in JUDGE_REVERSED.jobs(config) if j["dataset"].startswith("entityauth/"))
    assert JUDGE_REVERSED.folder(layout, entity) == (
        f"res/{entity['dataset']}/cells/gemma3-270m/{entity['judge']}/wo_text/{entity['setting']}/reversed")
    assert JUDGE_REVERSED.outputs(layout)["manifest"] == (
        "res/{dataset}/cells/{model}/{judge}/{context}/{setting}/reversed/manifest.json")


def test_the_params_json_by_hand(config):
    job = {"dataset": "domainauth", "model": "gemma3-270m", "judge": "point", "context": "wo_text",
           "setting": "fine"}
    model = '{"engine":"instant","model":"instant-gemma"}'
    assert JUDGE.params_json(config, job) == (
        '{"cache":null,"cell":"domainauth/gemma3-270m/point/wo_text/fine","constrained":true,"context":"wo_text",'
        f'"expected_scores":true,"judge":"point","model":{model},"seed":7,"setting":"fine"}}')
    pair = {**job, "judge": "pair_rank", "setting": "pairs"}
    reversed_params = json.loads(JUDGE_REVERSED.params_json(config, pair))
    assert reversed_params == {**json.loads(JUDGE.params_json(config, pair)), "reversed": True,
                               "cell": "domainauth/gemma3-270m/pair_rank/wo_text/pairs/reversed"}
    assert reversed_params["expected_scores"] is False  # a rank judge has no scores


def test_the_step_sends_the_judges_requests_in_its_order(config):
    job = {"dataset": "domainauth", "model": "gemma3-270m", "judge": "pair_rank", "context": "wo_text",
           "setting": "pairs"}
    inputs = JUDGE.input_paths(config, job)
    assert inputs == {"instances": "res/domainauth/instances/pairs.jsonl",
                      "template": "resources/prompts/domainauth/pair_rank_wo_text.yaml"}
    items = [{"domain": d, "label": n, "item_id": d} for n, d in enumerate(("a.org", "b.org"))]
    instances = [{"instance_id": "p0", "items": items}]
    template = load_template(ROOT / inputs["template"])
    data = {"instances": instances, "template": template}
    seeded = judge_job(json.loads(JUDGE.params_json(config, job)), data)
    flipped = judge_job(json.loads(JUDGE_REVERSED.params_json(config, job)), data)
    assert seeded == build_requests("pair_rank", "pairs", instances, template, 7)
    assert flipped == build_requests("pair_rank", "pairs", instances, template, 7, "reversed") != seeded


def test_a_file_of_each_cell_and_reversed_job():
    cells = [GridEntry("entityauth/x", "m", "list_rank", "wo_text", "coarse"), GridEntry("domainauth", "m@b", "point",
                                                                                        "w_text", "bias")]
    assert cell_files(Layout("res"), cells, "metrics.tsv") == [
        "res/entityauth/x/cells/m/list_rank/wo_text/coarse/metrics.tsv",
        "res/domainauth/cells/m@b/point/w_text/bias/metrics.tsv"]
    assert cell_files(Layout("res"), cells[:1], "units.parquet", JUDGE_REVERSED) == [
        "res/entityauth/x/cells/m/list_rank/wo_text/coarse/reversed/units.parquet"]
