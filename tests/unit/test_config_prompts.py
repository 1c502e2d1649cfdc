"""Config validation, prompt templates, grammars and request building."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config
from authbench.config import (GenerateConfig, check_overlay_paths, check_renamed, inherited, load_config, models_for,
                              validate_schema)
from authbench.studies.authority.grid import grid, check_data
from authbench.studies.ragauth.cell_list import rag_cells
from authbench.studies.selfpref.cell_list import selfpref_cells
from authbench.studies.registry import check as check_config
from authbench.errors import ConfigError, PipelineError, TemplateError
from authbench.llm.grammars import grammar_for
from authbench.studies.authority.prompts import load_template
from authbench.studies.authority.requests import build_requests

ROOT = Path(__file__).resolve().parents[2]

PROMPTS = Path(__file__).resolve().parents[2] / "resources" / "prompts" / "domainauth"


@pytest.fixture
def config(root):
    return yaml.safe_load((root / "config.yaml").read_text())


def test_demo_config_valid(config):
    validate_schema(config)
    check_config(config)
    entries = grid(config)
    domain = [c for c in entries if c.dataset == "domainauth"]
    # 4 point + 2+2 list + 3+3 pair settings per model x context; two models
    assert len(domain) == 14 * 2
    assert {c.setting for c in domain if c.judge == "list_rank"} == {"fine", "coarse"}
    # EntityAuth, the demo: 5 judges x songs x 2 models on the N=10 (fine) lists only (coarse_source rescore:
    # Table 6 rescores them), without text
    entity = [c for c in entries if c.dataset.startswith("entityauth/")]
    assert len(entity) == 5 * 2
    assert {(c.setting, c.context) for c in entity} == {("fine", "wo_text")}
    assert {c.dataset for c in entity} == {"entityauth/songs"}
    only_domain = {**config, "studies": ["domainauth"]}
    assert len(grid(only_domain)) == 14 * 2
    # entityauth.coarse_source: lists -> coarse cells of their own (N=5 lists)
    own = {**config, "entityauth": {**config["entityauth"], "coarse_source": "lists"}}
    check_config(own)
    assert sum(c.setting == "coarse" for c in grid(own) if c.dataset.startswith("entityauth/")) == 5 * 2
    # config/demo_full.yaml: the three datasets and their coarse cells
    full = copy.deepcopy(config)
    update_config(full, yaml.safe_load((ROOT / "config" / "demo_full.yaml").read_text()))
    validate_schema(full)
    check_config(full)
    entity = [c for c in grid(full) if c.dataset.startswith("entityauth/")]
    assert {c.dataset for c in entity} == {"entityauth/basketball", "entityauth/movies", "entityauth/songs"}
    assert len(entity) == 15 * 2 * 2 and sum(c.setting == "coarse" for c in entity) == 15 * 2


def test_model_studies_key_restricts_a_model(config):
    """A model's `studies` list keeps it out of the other studies' cells
    (config/paper.yaml's hosted self-preference evaluators judge no
    AuthorityBench cell); without the key a model runs every study."""
    cfg = copy.deepcopy(config)
    cfg["models"]["qwen2.5-coder-0.5b"]["studies"] = ["selfpref"]
    validate_schema(cfg)
    check_config(cfg)
    entries = grid(cfg)
    assert {c.model for c in entries} == {"gemma3-270m"}
    assert len(entries) == 14 + 5  # DomainAuth 14 + EntityAuth 5 cells (songs, fine lists) of the one model left
    assert {m for m, _, _ in rag_cells(cfg, lambda path: True).cells} == {"gemma3-270m"}
    assert list(models_for(cfg, "selfpref")) == ["gemma3-270m", "qwen2.5-coder-0.5b"]
    assert selfpref_cells(cfg).evaluators == ["gemma3-270m", "qwen2.5-coder-0.5b"]
    # a model the self-preference config uses must run it
    cfg["models"]["gemma3-270m"]["studies"] = ["domainauth", "entityauth"]
    with pytest.raises(ConfigError, match=r"model\(s\) \['gemma3-270m'\] whose 'models.<name>.studies' list leaves out"):
        selfpref_cells(cfg)
    cfg["models"]["gemma3-270m"]["studies"] = ["selfpref", "vibes"]
    validate_schema(cfg)  # a study of one's own may add a name: the registry's check names an unknown one
    with pytest.raises(ConfigError, match=r"config key 'models.gemma3-270m.studies' names 'vibes', not a "):
        check_config(cfg)


def test_selfpref_retries_need_sampling(config):
    """Retries re-ask at seed + try: at temperature 0 every try would repeat
    the first reply, so the config is refused, naming the keys."""
    cfg = copy.deepcopy(config)
    cfg["selfpref"]["compare"]["retries"] = 4
    validate_schema(cfg)
    with pytest.raises(ConfigError, match=r"'selfpref.compare.retries' is 4 but evaluator 'gemma3-270m' decodes at "
                                          r"temperature 0"):
        selfpref_cells(cfg)
    cfg["selfpref"]["compare"]["generate"]["temperature"] = 1.0
    cfg["selfpref"]["rerank"] = {"retries": 19, "false_answer": "evaluator", "generate": None}
    with pytest.raises(ConfigError, match=r"'selfpref.rerank.retries' is 19"):
        selfpref_cells(cfg)
    cfg["selfpref"]["rerank"]["generate"] = {"temperature": 1.0}
    assert selfpref_cells(cfg).evaluators == ["gemma3-270m", "qwen2.5-coder-0.5b"]
    cfg["selfpref"]["rerank"]["false_answer"] = "judge"
    with pytest.raises(ConfigError, match=r"config key 'selfpref.rerank.false_answer'"):
        validate_schema(cfg)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c.update(judges=["point", "vibes"]), "config key 'judges.1': 'vibes' is not one of"),
        (lambda c: c.update(colour="red"), "Additional properties are not allowed ('colour' was unexpected)"),
        # a typo gets the allowed keys that come close (test_a_key_close_to_none_gets_no_hint: nothing else does)
        (lambda c: c["domainauth"]["sampling"].update(fine_list=2),
         "config key 'domainauth.sampling': Additional properties are not allowed ('fine_list' was unexpected) "
         "('fine_list': did you mean 'fine_lists'?)"),
        (lambda c: c["selfpref"]["rerank"].update(retrys=2), "('retrys': did you mean 'retries'?)"),
        (lambda c: c["domainauth"]["sampling"].update(fine_lists=0), "config key 'domainauth.sampling.fine_lists'"),
        (lambda c: c["entityauth"].update(coarse_lists=0), "config key 'entityauth.coarse_lists'"),
        (lambda c: c["entityauth"].update(coarse_source="both"), "config key 'entityauth.coarse_source'"),
        (lambda c: c["entityauth"].pop("coarse_source"), "'coarse_source' is a required property"),
        (lambda c: c["models"]["gemma3-270m"].update(engine="gpt"), "config key 'models.gemma3-270m.engine'"),
        (lambda c: c.update(contexts=["w_text"]), "'domainauth.text' is null"),
        (lambda c: c["domainauth"]["sampling"].update(hard_max_delta=5), "must be smaller than 'easy_min_delta'"),
        (lambda c: c["entityauth"]["datasets"].update({"Bad Name": {"source": "x.jsonl"}}), "config key 'entityauth.datasets'"),
        (lambda c: c["fetch"].update(pagerank={"domains": "d.tsv", "method": "api", "batch_size": 500}),
         "config key 'fetch.pagerank.batch_size'"),
        (lambda c: c.pop("entityauth"), "lists 'entityauth' but there is no 'entityauth' section"),
    ],
)
def test_bad_config_names_key(config, mutate, message):
    bad = copy.deepcopy(config)
    bad.setdefault("fetch", {})
    mutate(bad)
    with pytest.raises(ConfigError) as err:
        validate_schema(bad)
        check_config(bad)
    assert message in str(err.value)


def test_a_key_close_to_none_gets_no_hint(config):
    bad = copy.deepcopy(config)
    bad["colour"] = "red"
    with pytest.raises(ConfigError) as err:
        validate_schema(bad)
    assert str(err.value).endswith("Additional properties are not allowed ('colour' was unexpected)")


def test_renamed_key_is_named(config, tmp_path):
    """An overlay written for the old name `benchmarks` gets a message naming the new one."""
    old = {k: v for k, v in config.items() if k != "studies"}
    old["benchmarks"] = ["domainauth"]
    with pytest.raises(ConfigError, match="config key 'benchmarks' is now called 'studies'"):
        check_renamed(old)
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(old))
    with pytest.raises(ConfigError, match="is now called 'studies'"):
        load_config(path)
    check_renamed(config)  # the demo config uses the new name


def test_every_named_error_is_a_pipeline_error():
    """The CLI catches one base class: every named error derives from it and
    keeps the built-in base callers may already catch."""
    from authbench import errors

    named = [getattr(errors, n) for n in dir(errors) if n.endswith("Error") and n != "PipelineError"]
    assert len(named) == 12
    for cls in named:
        assert issubclass(cls, PipelineError) and issubclass(cls, (ValueError, RuntimeError)), cls


def test_generate_config_merge():
    base = GenerateConfig()
    merged = base.merge({"temperature": 0.5, "max_tokens": None})
    assert merged.temperature == 0.5 and merged.max_tokens == base.max_tokens
    with pytest.raises(ConfigError, match="unknown generate setting"):
        base.merge({"temprature": 1})


def test_all_templates_load_and_render():
    files = sorted(PROMPTS.glob("*.yaml"))
    assert len(files) == 10  # 5 judges x 2 contexts
    item = {"domain": "nasa.gov", "text": "Space agency."}
    for f in files:
        t = load_template(f)
        if t.judge == "point":
            out = t.render_point(item)
        elif t.judge.startswith("pair"):
            out = t.render_pair(item, {"domain": "x.com", "text": "Shop."})
        else:
            out = t.render_list([item, {"domain": "x.com", "text": "Shop."}])
        assert "nasa.gov" in out and out.endswith("Your answer:")
        assert ("Space agency." in out) == (t.context == "w_text")


def test_point_template_is_appendix_a_verbatim():
    out = load_template(PROMPTS / "point_wo_text.yaml").render_point({"domain": "nasa.gov"})
    assert 'Output only: {"score": X} where X is your evaluated score (0, 1, 2, 3, 4, 5, 6, 7, 8, or 9).' in out
    assert "DOMAIN: nasa.gov\n\nBased on the above criteria" in out


def test_list_template_uses_list_size():
    t = load_template(PROMPTS / "list_score_wo_text.yaml")
    out = t.render_list([{"domain": f"d{i}.com"} for i in range(5)])
    assert '[4] d4.com' in out and '..., "4": 8}' in out
    rank = load_template(PROMPTS / "list_rank_wo_text.yaml").render_list([{"domain": "a.com"}] * 5)
    assert "Rank the 5 domains above" in rank


ENTITY_PROMPTS = PROMPTS.parent / "entityauth"


def test_entity_templates_load_and_render():
    files = sorted(ENTITY_PROMPTS.glob("*/*.yaml"))
    assert len(files) == 15  # 5 judges x 3 domains
    angel = {"entity": "Angel", "question": "Who is the performer of the song Angel"}
    one = {"entity": "One", "question": "Who is the performer of the song One"}
    for f in files:
        t = load_template(f)
        assert t.benchmark == "entityauth" and t.context == "wo_text"
        if t.judge == "point":
            out = t.render_point(angel)
            assert "QUESTION CONTEXT: Who is the performer of the song Angel\n\nTARGET ENTITY: Angel" in out
        elif t.judge.startswith("pair"):
            out = t.render_pair(angel, one)
            assert "Entity A:" in out and "Angel" in out and "One" in out
        else:
            out = t.render_list([angel, one])
            assert "[0] Angel\n[1] One" in out
        assert out.endswith("Your answer:")


def test_entity_prompts_songs_verbatim_others_substituted():
    songs = load_template(ENTITY_PROMPTS / "songs" / "pair_rank_wo_text.yaml").render_pair({"entity": "A1"}, {"entity": "B1"})
    assert ("QUESTION CONTEXT: These entities are the subjects of questions like "
            "'Who is the performer of the song ...?'") in songs
    assert 'Entity A: "A1"\n\nEntity B: "B1"' in songs
    assert "a Wikipedia notability expert and a music industry expert" in songs
    ball = load_template(ENTITY_PROMPTS / "basketball" / "list_rank_wo_text.yaml").render_list([{"entity": "X"}] * 10)
    assert "a basketball expert" in ball and "Rank the 10 basketball player entities above" in ball
    assert "‘Where is the birthplace of the basketball player...’" in ball
    movie = load_template(ENTITY_PROMPTS / "movies" / "list_score_wo_text.yaml").render_list([{"entity": "X"}] * 10)
    assert "a film industry expert" in movie and "‘Who is the director of the movie...’" in movie
    assert "song" not in ball + movie and "music" not in ball + movie


def test_entity_template_needs_question_for_point(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text("benchmark: entityauth\njudge: point\ncontext: wo_text\noutput: score\ntemplate: '{entity}'")
    with pytest.raises(TemplateError, match=r"lacks placeholder\(s\) \['question'\]"):
        load_template(p)
    p.write_text("benchmark: entityauth\njudge: point\ncontext: w_text\noutput: score\ntemplate: '{entity}'")
    with pytest.raises(TemplateError, match="unknown judge/context"):
        load_template(p)


@pytest.mark.parametrize(
    "body, message",
    [
        ("judge: point\ncontext: wo_text\noutput: score\ntemplate: 'no placeholder'", "lacks placeholder(s) ['domain']"),
        ("judge: point\ncontext: wo_text\noutput: score\ntemplate: '{domain} {colour}'", "unknown placeholder(s) ['colour']"),
        ("judge: point\ncontext: wo_text\noutput: ranking\ntemplate: '{domain}'", "replies in format 'score'"),
        ("judge: list_rank\ncontext: wo_text\noutput: ranking\ntemplate: '{items} {n}'", "need an 'item' line"),
        ("judge: point\ncontext: wo_text\noutput: score\ntemplate: '{domain'", "not valid format syntax"),
        ("judge: point\ncontext: wo_text\noutput: score", "missing key 'template'"),
    ],
)
def test_bad_templates(tmp_path, body, message):
    p = tmp_path / "t.yaml"
    p.write_text(body)
    with pytest.raises(TemplateError) as err:
        load_template(p)
    assert str(p) in str(err.value) and message in str(err.value)


@pytest.mark.parametrize(
    "fmt, n, ok, bad",
    [
        ("score", None, ['{"score": 7}', ' {"score": 0}'], ['{"score": 10}', "7"]),
        ("pair_choice", None, ["A", " B"], ["AB", "C"]),
        ("pair_scores", None, ['{"A": 7, "B": 4}'], ['{"A": 7}']),
        ("ranking", 3, ["[2] > [0] > [1]", "[1] > [1] > [1]"], ["[3] > [0] > [1]", "[2] > [0]"]),
        ("list_scores", 3, ['{"0": 1, "1": 9, "2": 0}'], ['{"0": 1, "1": 9}', '{"1": 1, "0": 9, "2": 0}']),
    ],
)
def test_grammar_shapes(fmt, n, ok, bad):
    # Check the GBNF by translating its simple shape to a regex (the grammars
    # use only literals, character classes, ? , | and {k} repetition).
    g = grammar_for(fmt, n).split("::=", 1)[1].strip()
    tokens = re.findall(r'"((?:\\.|[^"\\])*)"|(\[[^\]]+\])|(\{\d+\})|([()?|])', g)
    pattern = ""
    for lit, cls, rep, op in tokens:
        if lit or (not cls and not rep and not op):
            pattern += re.escape(lit.encode().decode("unicode_escape"))
        elif cls:
            pattern += cls
        elif rep:
            pattern += rep
        else:
            pattern += op
    for s in ok:
        assert re.fullmatch(pattern, s), (pattern, s)
    for s in bad:
        assert not re.fullmatch(pattern, s), (pattern, s)


def _list(n, anchors=None):
    inst = {"instance_id": "fine-00000", "items": [{"domain": f"d{i}.com", "level": i} for i in range(n)]}
    if anchors:
        inst["anchors"] = anchors
    return inst


def test_pair_requests_anchor_and_exhaustive():
    t = load_template(PROMPTS / "pair_rank_wo_text.yaml")
    fine = build_requests("pair_rank", "fine", [_list(10, [0, 2, 4, 6, 8])], t, seed=1)
    assert len(fine) == 35
    pairs = [tuple(sorted(map(int, r["request_id"].split(":")[1].split("-")))) for r in fine]
    assert len(set(pairs)) == 35
    anchors = {0, 2, 4, 6, 8}
    assert all(a in anchors or b in anchors for a, b in pairs)  # no non-anchor vs non-anchor
    # position A is recorded and randomised: the item shown as A is the first id
    firsts = [int(r["request_id"].split(":")[1].split("-")[0]) for r in fine]
    assert firsts != [min(p) for p in pairs]
    for r, first in zip(fine, firsts):
        assert f"Domain A: d{first}.com" in r["prompt"]
    coarse = build_requests("pair_score", "coarse", [_list(5)], load_template(PROMPTS / "pair_score_wo_text.yaml"), 1)
    assert len(coarse) == 10


def test_point_requests_deduplicate_domains():
    t = load_template(PROMPTS / "point_wo_text.yaml")
    reqs = build_requests("point", "fine", [_list(3), _list(4)], t, seed=0)
    assert [r["request_id"] for r in reqs] == ["item:d0.com", "item:d1.com", "item:d2.com", "item:d3.com"]


def test_inherited_means_left_to_config_yaml():
    overlay = {"studies": ["domainauth"], "domainauth": {"source": "mine.csv", "sampling": {"fine_lists": 1}}}
    assert inherited(overlay, "domainauth.status_filter") and inherited(overlay, "domainauth.sampling.anchors")
    assert not inherited(overlay, "domainauth.source") and not inherited(overlay, "domainauth.sampling.fine_lists")
    assert not inherited({"domainauth": {"status_filter": None}}, "domainauth.status_filter")  # null is set too
    assert not inherited(None, "domainauth.status_filter") and not inherited({}, "domainauth.status_filter")


def test_inherited_status_filter_that_does_not_fit_says_where_it_came_from(config, tmp_path):
    """config.yaml's status_filter (legitimate), merged under a user's overlay, on a file with no
    status column: the error says the value came from config.yaml and that null turns it off."""
    source = tmp_path / "mine.csv"
    source.write_text("url,page_rank\nhttps://a.gov,7\n")
    overlay = {"studies": ["domainauth"], "domainauth": {"source": str(source)}}
    merged = copy.deepcopy(config)
    merged.update(studies=["domainauth"])
    merged["domainauth"]["source"] = str(source)
    with pytest.raises(ConfigError) as err:
        check_data(merged, overlay)
    assert str(err.value) == (
        f"config key 'domainauth.status_filter' is 'legitimate' but {source} has no column 'status' (its columns: "
        "url, page_rank). The value of 'domainauth.status_filter' comes from config.yaml: the demo's settings, "
        "merged under every --configfile overlay, so a key your overlay leaves out keeps the demo's value. "
        "Set 'domainauth.status_filter: null' to keep every row.")
    with pytest.raises(ConfigError) as err:  # set by the user: no word on config.yaml
        check_data(merged, {**overlay, "domainauth": {"source": str(source), "status_filter": "legitimate"}})
    assert "comes from config.yaml" not in str(err.value) and "status_filter: null" in str(err.value)
    merged["domainauth"]["status_filter"] = None
    check_data(merged, overlay)
    merged["domainauth"].update(status_filter="ok", source=str(tmp_path / "written-by-a-rule.csv"))
    check_data(merged, overlay)  # not there yet: the build job checks it
    check_data(config)  # the demo's own file has the column


def test_inherited_text_null_with_w_text(config):
    merged = copy.deepcopy(config)
    merged["contexts"] = ["wo_text", "w_text"]
    with pytest.raises(ConfigError) as err:
        check_config(merged, {"contexts": ["wo_text", "w_text"]})
    assert "'domainauth.text' is null" in str(err.value)
    assert "The value of 'domainauth.text' comes from config.yaml" in str(err.value)
    assert "'contexts' comes from" not in str(err.value)


# --- prompt sets ------------------------------------------------------------
def test_prompt_sets_add_cells_for_the_templates_a_set_holds(config, tmp_path, monkeypatch):
    from authbench.config import split_model
    from authbench.studies.authority.grid import entry_template

    monkeypatch.chdir(ROOT)
    config["prompt_sets"] = {"reworded": "examples/prompt_sets/reworded"}
    validate_schema(config)
    check_config(config)
    entries = grid(config)
    extra = [c for c in entries if "@" in c.model]
    base = [c for c in entries if "@" not in c.model]
    # the demo's PointJudge cells, once more each (the set holds point_w_text and point_wo_text)
    assert sorted((c.model, c.dataset, c.context, c.setting) for c in extra) == sorted(
        (f"{c.model}@reworded", c.dataset, c.context, c.setting) for c in base
        if c.judge == "point" and c.dataset == "domainauth")
    assert entries[:len(base)] == base  # the paper set's cells first, unchanged
    cell = extra[0]
    assert split_model(cell.model) == (cell.model.split("@")[0], "reworded")
    assert split_model("qwen") == ("qwen", "paper")
    assert entry_template(config, cell) == f"examples/prompt_sets/reworded/domainauth/point_{cell.context}.yaml"
    assert entry_template(config, base[0]).startswith("resources/prompts/")


def test_prompt_set_errors(config, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    validate_schema(config)
    for sets, message in [({"x": str(tmp_path / "none")}, "does not exist"),
                          ({"x": "resources/prompts/ragauth"}, "holds none of the grid's templates; expected one or "
                                                               "more of domainauth/"),
                          ({"paper": "examples/prompt_sets/reworded"}, "not 'paper'")]:
        bad = copy.deepcopy(config)
        bad["prompt_sets"] = sets
        with pytest.raises(ConfigError, match=re.escape(message)):
            check_config(bad)


def test_selfpref_dataset_names_must_differ_beyond_case(config):
    """Two datasets whose names differ only in case would share a results
    folder on a case-insensitive file system and a scorecard label: refused."""
    cfg = copy.deepcopy(config)
    cfg["selfpref"]["datasets"]["NQ"] = copy.deepcopy(cfg["selfpref"]["datasets"]["nq"])
    with pytest.raises(ConfigError, match=r"'selfpref.datasets' names one dataset twice: \['nq', 'NQ'\]"):
        selfpref_cells(cfg)
    cfg["selfpref"]["datasets"]["nq2"] = cfg["selfpref"]["datasets"].pop("NQ")
    assert selfpref_cells(cfg).datasets == ["nq", "nq2"]
    cfg["selfpref"]["datasets"]["Report"] = cfg["selfpref"]["datasets"].pop("nq2")
    with pytest.raises(ConfigError, match=r"names a dataset 'Report': that name is the folder of every dataset's"):
        selfpref_cells(cfg)


def test_a_path_meant_from_the_overlays_folder_is_named(tmp_path):
    """`make run CONFIG=~/proj/mine.yaml` with `source: mine.csv` beside it: paths are read from the
    workflow's folder, so the run would stop on a missing input; the check names the key and the path."""
    repo, proj = tmp_path / "repo", tmp_path / "proj"
    (proj / "selfpref").mkdir(parents=True)
    repo.mkdir()
    (proj / "mine.csv").write_text("domain,score\n")
    overlay = proj / "mine.yaml"
    overlay.write_text(yaml.safe_dump({"studies": ["selfpref"],  # a word, though proj/selfpref/ exists
                                       "domainauth": {"source": "mine.csv", "text": str(proj / "mine.csv")},
                                       "results": "results/mine"}))
    with pytest.raises(ConfigError) as err:
        check_overlay_paths([overlay], repo)
    assert str(err.value) == (f"config key 'domainauth.source' in {overlay}: 'mine.csv' is read from {repo} (the "
                              f"folder the workflow runs in), where it does not exist; {proj / 'mine.csv'}, next to "
                              "the config file, does: write that path")
    (repo / "mine.csv").write_text("domain,score\n")  # there from the workflow's folder too: it is read there
    check_overlay_paths([overlay], repo)
    check_overlay_paths([overlay], proj)  # the config file in the workflow's folder
