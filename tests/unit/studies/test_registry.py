"""The study registry (authbench.studies.registry): the shipped studies, a
study file of one's own, the config's study words checked against it, the
rules files and schema blocks it contributes, the wildcard constraints and
the CLI steps it routes."""

import json
import textwrap

import pytest
from authbench.config import load_config
from authbench.errors import ConfigError
from authbench.studies import registry as R

ROOT = R.ROOT


@pytest.fixture
def config():
    return load_config(ROOT / "config.yaml")


def test_the_shipped_studies_and_their_papers(config):
    studies = R.studies(config)
    assert list(studies) == ["domainauth", "entityauth", "ragauth", "selfpref"]
    assert {s.name: s.paper for s in studies.values()} == {"domainauth": "authoritybench",
                                                          "entityauth": "authoritybench",
                                                          "ragauth": "authoritybench", "selfpref": "selfpref"}
    # DomainAuth and EntityAuth share their rules and config block: each included and merged once
    assert R.rule_files(config) == [str(ROOT / f) for f in ("rules/authority.smk", "rules/ragauth.smk",
                                                            "rules/selfpref.smk")]
    assert [p.parent.name for p in R.schema_blocks(config)] == ["authority", "ragauth", "selfpref"]
    assert [s.name for s in R.active({**config, "studies": ["selfpref", "domainauth"]})] == ["domainauth", "selfpref"]
    # found, not listed: every folder of workflow/studies/ with a study.py, in alphabetical order
    assert R.BUILTIN == ("authority", "ragauth", "selfpref")


def test_a_shipped_folder_without_a_declaration_is_named():
    import types

    assert R._declared(types.SimpleNamespace(STUDIES=(R.Study("a", "p", "A", ()), R.Study("b", "p", "B", ())),
                                             __file__="x/study.py"))[1].name == "b"
    with pytest.raises(ConfigError, match=r"x/study.py: expected STUDIES \(a tuple\) or STUDY"):
        R._declared(types.SimpleNamespace(STUDY="not a study", __file__="x/study.py"))


def test_an_unknown_study_word_is_named(config):
    with pytest.raises(ConfigError, match=r"config key 'studies' names 'nosuch', not a registered study; the studies: "
                                          r"domainauth, entityauth, ragauth, selfpref"):
        R.active({**config, "studies": ["entityauth", "nosuch"]})


def test_cli_steps_are_routed_to_their_studys_commands(config):
    assert R.command_module("domainauth-build") == R.command_module("authority-judge") == \
        "authbench.studies.authority.cli"
    assert R.command_module("selfpref-compare") == "authbench.studies.selfpref.cli"
    assert R.command_module("plan") is None  # a shared step


def _study_file(tmp_path, name="mine", body=""):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""
        from authbench.studies.registry import Study
        STUDY = Study({name!r}, paper="authoritybench", title="Mine", rules=(), prefixes=({name!r},),
                      words=lambda config: {{"thing": ("a", "b"), "setting": ("extra",)}})
        {body}
    """))
    return path


def test_a_study_file_of_ones_own_joins_the_registry_and_its_jobs(config, tmp_path, monkeypatch):
    path = _study_file(tmp_path)
    mine = {**config, "more_studies": [str(path)], "studies": ["mine"]}
    assert list(R.studies(mine))[-1] == "mine" and [s.name for s in R.active(mine)] == ["mine"]
    # its words join the constraints: a new wildcard, and one more word of a shared one
    got = R.wildcard_constraints(mine, ["m"])
    assert got["thing"] == "a|b" and got["setting"] == "fine|coarse|pairs|bias|extra"
    # a job finds it through the environment the run exports
    env = R.environment(mine)
    assert json.loads(env[R.MORE_STUDIES_ENV]) == [str(path.resolve())]
    monkeypatch.setenv(R.MORE_STUDIES_ENV, env[R.MORE_STUDIES_ENV])
    assert "mine" in R.studies()


def test_bad_study_files_are_named(config, tmp_path):
    with pytest.raises(ConfigError, match=r"'more_studies': .*nofile.py' is not a study folder or file"):
        R.studies({**config, "more_studies": [str(tmp_path / "nofile.py")]})
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    with pytest.raises(ConfigError, match=r"defines no STUDY"):
        R.studies({**config, "more_studies": [str(empty)]})
    twice = _study_file(tmp_path, "selfpref")
    with pytest.raises(ConfigError, match=r"study 'selfpref' is declared twice"):
        R.studies({**config, "more_studies": [str(twice)]})


def test_a_study_folder_is_imported_as_a_package(config, tmp_path):
    folder = tmp_path / "my study"
    folder.mkdir()
    (folder / "logic.py").write_text("WORDS = ('x', 'y')\n")
    _study_file(folder, "study", body="from . import logic; "
                "STUDY = __import__('dataclasses').replace(STUDY, words=lambda c: {'thing': logic.WORDS}, "
                "commands=__name__, statistics=logic.__name__)")
    study = R.studies({**config, "more_studies": [str(folder)]})["study"]
    assert R.wildcard_constraints({**config, "more_studies": [str(folder)]}, ["m"])["thing"] == "x|y"
    # its modules are named by the package: the CLI and the statistics import them by name
    package, name = study.commands.rsplit(".", 1)
    assert name == "study" and study.statistics == f"{package}.logic"
    assert R.load_file(folder / "study.py") is study  # the folder or its study.py: one import


def test_job_kinds_and_rule_params_are_found_by_rule(config, tmp_path):
    path = _study_file(tmp_path, body="from authbench.studies.jobs import JobKind; "
                       "KIND = JobKind('mine_judge', 'mine/{model}/x', jobs=lambda c: [], params=None, "
                       "requests=None); "
                       "STUDY = __import__('dataclasses').replace(STUDY, jobs=(KIND,), "
                       "params={'mine_report': lambda c: {'seed': c['seed']}})")
    mine = {**config, "more_studies": [str(path)]}
    assert R.job_kinds(mine)["mine_judge"].pattern == "mine/{model}/x"
    assert R.rule_params(mine)["mine_report"](mine) == {"seed": config["seed"]}
    assert "mine_judge" not in R.job_kinds(config)
    other = _study_file(tmp_path, "other", body="from authbench.studies.jobs import JobKind; "
                        "STUDY = __import__('dataclasses').replace(STUDY, jobs=(JobKind('mine_judge', 'o/{model}', "
                        "jobs=None, params=None, requests=None),))")
    with pytest.raises(ConfigError, match=r"study 'other' declares a second job kind \(Study.jobs\) of rule "
                                          r"'mine_judge'; expected one"):
        R.job_kinds({**config, "more_studies": [str(path), str(other)]})


def test_the_scorecard_coverage_is_each_studys_own_parts(config, tmp_path):
    from authbench.studies.scorecard import Coverage, coverage_params

    # the shipped config (config.yaml): AuthorityBench's parts (DomainAuth and EntityAuth give the same) and RAGAuth's
    parts = R.coverage_parts(config)
    assert parts == {
        "entity_datasets": ["songs"],
        "bias_scope": "sample: config domainauth.sampling bias_per_level 1, bias_per_category 1",
        "rescored": "N=10 lists rescored (entityauth.coarse_source: rescore)",
        "samples": {"DomainAuth": {"fine_lists": 2, "coarse_lists": 1, "easy_pairs": 3, "hard_pairs": 3},
                    "EntityAuth/songs": {"corpus": 2000, "fine_lists": 1, "coarse_lists": 2}},
        "strategies": ["no_filter", "relevance", "utility", "authority", "pagerank_oracle", "tld_prior"],
        "k": ["1", "3", "5"]}
    # the same parts whichever studies run: a report's params do not change when another study joins
    assert R.coverage_parts({**config, "studies": ["selfpref"]})["strategies"] == parts["strategies"]
    params = coverage_params(config, "selfpref")
    assert list(params)[:4] == ["models", "judges", "contexts", "settings"] and params["k"] == ["1", "3", "5"]
    assert Coverage.of(params, "selfpref").covered == parts
    # a study file of one's own adds its part; a part given twice with another value is named
    mine = _study_file(tmp_path, body='STUDY = __import__("dataclasses").replace(STUDY, coverage=lambda c: '
                                      '{"levels": [1, 2]})')
    assert R.coverage_parts({**config, "more_studies": [str(mine)]})["levels"] == [1, 2]
    clash = _study_file(tmp_path, "clash", body='STUDY = __import__("dataclasses").replace(STUDY, '
                                                'coverage=lambda c: {"k": ["9"]})')
    with pytest.raises(ConfigError, match=r"study 'clash' gives the scorecard coverage's part 'k' a second value"):
        R.coverage_parts({**config, "more_studies": [str(clash)]})
