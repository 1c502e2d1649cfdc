"""The judge registry (authbench.studies.authority.judges): one object per
judge in the paper's order, each declaring the instance sets it runs on,
every judge list derived from it,
each judge with its prompt files; and no module outside the package chooses
behaviour by a judge's name."""

import ast
import re
from pathlib import Path

import pytest
from authbench.studies.authority.judges import (
    DERIVATION_COLUMNS,
    DERIVATION_JUDGES,
    JUDGE_NAMES,
    JUDGES,
    PAIRS_TABLE_ORDER,
    POINT,
    SCORE_JUDGES,
    Judge,
    judge_label,
    judge_of,
    judges_on,
    main_derivation,
)
from authbench.studies.authority.prompts import load_template

ROOT = Path(__file__).resolve().parents[5]
PACKAGE = ROOT / "workflow"
JUDGES_PACKAGE = PACKAGE / "studies" / "authority" / "judges"


def test_the_registry_is_the_papers_judges_in_order():
    assert JUDGE_NAMES == ("point", "list_rank", "list_score", "pair_rank", "pair_score")
    for name, judge in JUDGES.items():
        assert isinstance(judge, Judge) and judge.name == name
    # the paper's grid: lists by every judge, pairs (Table 3) by the pair judges and PointJudge, the bias
    # sample (Figure 6, Table 8) by PointJudge only
    assert {n: j.settings for n, j in JUDGES.items()} == {
        "point": ("fine", "coarse", "pairs", "bias"), "list_rank": ("fine", "coarse"),
        "list_score": ("fine", "coarse"), "pair_rank": ("fine", "coarse", "pairs"),
        "pair_score": ("fine", "coarse", "pairs")}
    assert JUDGES["point"] is POINT


def test_derived_judge_lists():
    assert SCORE_JUDGES == ("point", "list_score", "pair_score")
    assert DERIVATION_JUDGES == ("pair_rank", "pair_score")
    assert judges_on("pairs") == ("point", "pair_rank", "pair_score")
    assert PAIRS_TABLE_ORDER == ("pair_rank", "pair_score", "point")  # Table 3's columns
    assert judges_on("bias") == ("point",)
    assert judges_on("fine") == JUDGE_NAMES
    # Tables 9-12's columns, in the paper's order, then the Bradley–Terry ones
    assert DERIVATION_COLUMNS == (("PairRank", "pair_rank", "bubble"), ("PointScore_Bbl", "pair_score", "bubble"),
                                  ("PointScore_Pt", "pair_score", "average"), ("PairRank_BT", "pair_rank", "bt"),
                                  ("PointScore_BT", "pair_score", "bt"))
    assert [main_derivation(n) for n in JUDGE_NAMES] == ["direct", "direct", "direct", "bubble", "average"]
    assert main_derivation("baseline") is None


def test_labels_and_headers():
    assert [JUDGES[n].label for n in JUDGE_NAMES] == ["PointJudge", "ListRank", "ListScore", "PairRank", "PairScore"]
    assert [JUDGES[n].full_name for n in JUDGE_NAMES] == ["PointJudge", "ListJudge ListRank", "ListJudge PointScore",
                                                         "PairJudge PairRank", "PairJudge PointScore"]
    assert [JUDGES[n].short for n in JUDGE_NAMES] == ["Point", "ListRank", "ListScore", "PairRank", "PairScore"]
    assert [JUDGES[n].pairs_header for n in PAIRS_TABLE_ORDER] == ["PairJudge(PR)", "PairJudge(S)", "PointJudge"]
    assert len({j.marker for j in JUDGES.values()}) == len(JUDGES)  # one marker each in the cost figure
    assert judge_label("list_rank") == "ListRank" and judge_label("unknown") == "unknown"


def test_an_unknown_judge_is_a_named_error():
    with pytest.raises(ValueError, match="unknown judge 'listwise'.*'point'"):
        judge_of("listwise")


@pytest.mark.parametrize("name", JUDGE_NAMES)
def test_every_judge_has_its_prompt_files(name):
    """Adding a judge means its class and its prompt files: DomainAuth's two
    contexts and each EntityAuth domain, each loading for its judge."""
    paths = [ROOT / "resources" / "prompts" / "domainauth" / f"{name}_{c}.yaml" for c in ("wo_text", "w_text")]
    paths += sorted((ROOT / "resources" / "prompts" / "entityauth").glob(f"*/{name}_wo_text.yaml"))
    assert len(paths) == 5
    for path in paths:
        template = load_template(path)
        assert (template.judge, template.output) == (name, JUDGES[name].output)


# --- no judge-name branch outside the package --------------------------------------------------------------

NAMES = set(JUDGE_NAMES)
SMK_BRANCH = re.compile(r"judge\s*(==|!=)|judge\.(startswith|endswith)\(|judge\s+(not\s+)?in\s*[\(\[\{]|"
                        r"(==|!=)\s*[\"'](" + "|".join(JUDGE_NAMES) + r")[\"']")


def _mentions_judge(node: ast.AST) -> bool:
    return "judge" in ast.unparse(node).lower()


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _names_in(node: ast.AST) -> set[str]:
    """The judge names a literal spells (a string, or a tuple/list/set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names_in(e) for e in node.elts)) if node.elts else set()
    return set()


def name_branches(source: str) -> list[str]:
    """Where ``source`` chooses by a judge's name: a comparison with a judge
    name's literal, a judge compared with any string literal or literal
    collection, ``.startswith``/``.endswith`` on a judge, or a dict keyed
    by judge names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            literal = [s for s in sides if _is_text(s) or (isinstance(s, (ast.Tuple, ast.List, ast.Set))
                                                            and s.elts and all(_is_text(e) for e in s.elts))]
            if any(_names_in(s) for s in sides) or (literal and any(_mentions_judge(s) for s in sides
                                                                     if s not in literal)):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith") and _mentions_judge(node.func.value)):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict) and any(k is not None and _names_in(k) for k in node.keys):
            found.append(f"line {node.lineno}: a dict keyed by judge names")
    return found


def test_the_detector_finds_each_kind_of_branch():
    assert name_branches("if judge == 'point':\n    pass") != []
    assert name_branches("x = 1 if 'pair_rank' != cell.judge else 2") != []
    assert name_branches("if judge.startswith('list'):\n    pass") != []
    assert name_branches("ok = params['judge'] in ('pair_rank', 'pair_score')") != []
    assert name_branches("if judge not in {'x', 'y'}:\n    pass") != []
    assert name_branches("HEADERS = {'point': 'PointJudge'}") != []
    assert name_branches("keep = [c for c in cells if c.judge == 'point']") != []
    # asking the judge object, or a registry lookup, is no branch on its name
    assert name_branches("if judge_of(judge).scores and setting == 'pairs':\n    pass") == []
    assert name_branches("if judge not in JUDGES:\n    raise ValueError(judge)") == []
    assert name_branches("if (model, judge.name) in seen:\n    pass") == []


def test_no_module_outside_the_judges_branches_on_a_judge_name():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if JUDGES_PACKAGE in path.parents or path == PACKAGE / "judges.py":
            continue
        found += [f"{path.relative_to(ROOT)}: {hit}" for hit in name_branches(path.read_text(encoding="utf-8"))]
    for path in [ROOT / "Snakefile", *sorted((ROOT / "rules").rglob("*.smk"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SMK_BRANCH.search(line.split("#", 1)[0]):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == [], "ask the judge object (authbench.studies.authority.judges) instead:\n" + "\n".join(found)
