"""The transcribed published numbers (resources/published/, authbench.papers): values pinned as the
papers' text versions print them, each table's shape, unique keys, the marks, and a broken file's error."""

import re
import shutil

import pytest
from authbench.errors import InputError
from authbench.papers import load, paper_models, paper_of, papers
from authbench.claims.keys import rows_from_frame
from authbench.papers.published import COLUMNS, KEY, MARKS, as_columns, load_text

DIRECTORY = paper_of("authoritybench").published.parent
PAPERS = {name: p.published.name for name, p in papers().items()}

AB, SP = "authoritybench", "selfpref"
WO, W = "wo_text", "w_text"

# (paper, table, model, judge, context, setting, metric, value as printed, mark), each read off the .txt
PINNED = [
    # AuthorityBench (submission) Table 1: DomainAuth fine-grained
    (AB, 1, "Qwen3-8B", "point", WO, "", "rho", 41.97, ""),
    (AB, 1, "Qwen3-8B", "list_score", WO, "", "rho", 67.11, "underline"),
    (AB, 1, "Qwen3-8B", "point", W, "", "rho", 45.01, "underline"),
    (AB, 1, "Qwen3-8B", "point", W, "", "tau", 36.51, "underline"),
    (AB, 1, "Qwen3-32B", "pair_score", WO, "", "tau", 60.13, ""),
    (AB, 1, "Qwen3-14B", "pair_rank", W, "", "tau", 50.01, ""),
    (AB, 1, "Llama-3-8B-Instruct", "pair_score", WO, "", "rho", 64.83, "underline"),
    (AB, 1, "Llama-3.1-8B-Instruct", "pair_score", W, "", "rho", 62.88, ""),
    # Table 2: DomainAuth coarse-grained
    (AB, 2, "Qwen3-8B", "pair_rank", W, "", "rho", 8.73, ""),
    (AB, 2, "Qwen3-32B", "list_rank", WO, "", "tau", 63.35, "underline"),
    (AB, 2, "Qwen3-14B", "pair_score", W, "", "tau", 56.64, ""),
    (AB, 2, "Qwen3-32B", "pair_score", W, "", "tau", 56.64, ""),
    (AB, 2, "Llama-3.1-8B-Instruct", "point", W, "", "tau", 46.92, "underline"),
    (AB, 2, "Llama-3.1-8B-Instruct", "point", W, "", "rho", 56.58, ""),
    # Table 3: pairwise accuracy, easy / hard pairs
    (AB, 3, "Qwen3-8B", "pair_rank", WO, "difficulty=easy", "pair_accuracy", 44.28, ""),
    (AB, 3, "Qwen3-8B", "point", WO, "difficulty=easy", "pair_accuracy", 56.88, "underline"),
    (AB, 3, "Qwen3-14B", "pair_rank", W, "difficulty=hard", "pair_accuracy", 84.18, ""),
    (AB, 3, "Qwen3-32B", "point", W, "difficulty=easy", "pair_accuracy", 99.54, ""),
    (AB, 3, "Llama-3.1-8B-Instruct", "point", WO, "difficulty=hard", "pair_accuracy", 22.86, "underline"),
    # Table 4: EntityAuth fine-grained (w/o text)
    (AB, 4, "Qwen3-32B", "point", WO, "domain=basketball", "rho", 85.17, "underline"),
    (AB, 4, "Qwen3-14B", "list_rank", WO, "domain=movies", "tau", 74.62, "underline"),
    (AB, 4, "Qwen3-32B", "pair_score", WO, "domain=movies", "rho", 89.56, ""),
    (AB, 4, "Qwen3-8B", "pair_rank", WO, "domain=songs", "tau", 7.78, ""),
    (AB, 4, "Llama-3.1-8B-Instruct", "pair_score", WO, "domain=songs", "tau", 34.84, ""),
    # Table 5: RAGAuth answer accuracy
    (AB, 5, "Qwen3-8B", "no_filter", "", "k=all", "answer_accuracy", 53.33, ""),
    (AB, 5, "Qwen3-14B", "authority", "", "k=1", "answer_accuracy", 76.67, ""),
    (AB, 5, "Qwen3-32B", "utility", "", "k=5", "answer_accuracy", 60.00, ""),
    (AB, 5, "Llama-3-8B-Instruct", "relevance", "", "k=1", "answer_accuracy", 37.50, ""),
    (AB, 5, "Llama-3.1-8B-Instruct", "authority", "", "k=3", "answer_accuracy", 71.76, ""),
    # Table 6: EntityAuth coarse-grained (w/o text)
    (AB, 6, "Qwen3-8B", "point", WO, "domain=basketball", "rho", 70.97, "underline"),
    (AB, 6, "Qwen3-32B", "pair_score", WO, "domain=movies", "tau", 83.40, ""),
    (AB, 6, "Llama-3.1-8B-Instruct", "pair_rank", WO, "domain=songs", "tau", 15.64, ""),
    # Table 7: corpus statistics
    (AB, 7, "", "", "", "subtask=DomainAuth", "corpus_items", 10000, ""),
    (AB, 7, "", "", "", "subtask=EntityAuth;domain=songs", "corpus_items", 2000, ""),
    (AB, 7, "", "", "", "subtask=DomainAuth;list_size=5", "listwise_instances", 4500, ""),
    (AB, 7, "", "", "", "subtask=RAGAuth", "queries", 120, ""),
    # Table 8: PointJudge scoring bias (and the caption's true means)
    (AB, 8, "Qwen3-14B", "point", WO, "category=gov", "bias", 3.28, ""),
    (AB, 8, "Qwen3-32B", "point", W, "category=edu", "mean_pred_score", 7.26, ""),
    (AB, 8, "Llama-3-8B-Instruct", "point", W, "category=social", "bias", -0.06, ""),
    (AB, 8, "Llama-3.1-8B-Instruct", "point", W, "category=social", "bias", -0.21, ""),
    (AB, 8, "", "", "", "category=gov", "n_domains", 378, ""),
    (AB, 8, "", "", "", "category=social", "true_mean_pagerank", 6.00, ""),
    # Tables 9-12: PairJudge ranking derivations
    (AB, 9, "Qwen3-8B", "PairRank", WO, "", "rho", 44.19, ""),
    (AB, 9, "Qwen3-8B", "PointScore_Bbl", WO, "", "rho", 64.61, "underline"),
    (AB, 10, "Llama-3-8B-Instruct", "PointScore_Bbl", W, "", "rho", 54.92, "underline"),
    (AB, 11, "Llama-3.1-8B-Instruct", "PairRank", WO, "domain=basketball", "rho", 79.29, ""),
    (AB, 11, "Qwen3-8B", "PointScore_Bbl", WO, "domain=songs", "rho", 37.06, "underline"),
    (AB, 12, "Qwen3-8B", "PointScore_Pt", WO, "domain=songs", "rho", 39.27, ""),
    (AB, 12, "Qwen3-32B", "PointScore_Bbl", WO, "domain=movies", "rho", 90.15, ""),
    # Self-preference Table 1: knowledge levels, passage statistics
    (SP, 1, "GPT-3.5", "", "", "dataset=NQ", "knowledge_no", 27.1, ""),
    (SP, 1, "GPT-3.5", "", "", "dataset=TriviaQA", "knowledge_full", 70.8, "dagger"),
    (SP, 1, "GPT-4o-mini", "", "", "dataset=TriviaQA", "knowledge_no", 17, ""),
    (SP, 1, "GPT-4o-mini", "", "", "dataset=TriviaQA", "avg_length", 518.15, ""),
    (SP, 1, "Average", "", "", "dataset=NQ", "perplexity", 31.08, "dagger"),
    # Table 2: relevance scores, normal vs RAG prompt
    (SP, 2, "GPT-3.5", "normal", "", "dataset=NQ;author=Human", "mean_score", 3.85, ""),
    (SP, 2, "GPT-3.5", "normal", "", "dataset=NQ;author=Human", "sd_score", 0.47, ""),
    (SP, 2, "GPT-3.5", "normal", "", "dataset=NQ;author=self;passage=TRUE", "diff_h_minus_m", -0.22, "dagger"),
    (SP, 2, "Mistral", "normal", "", "dataset=NQ;author=self;passage=FALSE", "diff_h_minus_m", -0.00, ""),
    (SP, 2, "LLaMA", "rag", "", "dataset=TriviaQA;author=self;passage=TRUE", "diff_h_minus_m", 0.5, "dagger"),
    (SP, 2, "Gemini", "rag", "", "dataset=MARCO;author=self;passage=FALSE", "mean_score", 3.01, ""),
    (SP, 2, "Gemini", "rag", "", "dataset=MARCO;author=self;passage=FALSE", "sd_score", 1.58, ""),
    # Table 3: generation-phase preferences
    (SP, 3, "GPT-3.5", "", "", "dataset=NQ;other=Human", "self_preference", 41, ""),
    (SP, 3, "GPT-3.5", "", "", "dataset=NQ;other=Human", "order_preference", 60, ""),
    (SP, 3, "GPT-3.5", "", "", "dataset=NQ;other=Human", "factual_preference", 77, ""),
    (SP, 3, "GPT-4o-mini", "", "", "dataset=MARCO;other=Human", "order_preference", 44, ""),
    (SP, 3, "Mistral", "", "", "dataset=TriviaQA;other=Aggregated", "self_preference", 44.6, ""),
    (SP, 3, "Average", "", "", "other=Aggregated", "factual_preference", 82.7, ""),
    # Tables 4-5: writing style
    (SP, 4, "GPT", "", "", "dataset=NQ", "gen_by_qa_preference", 86, ""),
    (SP, 4, "LLaMA", "", "", "dataset=MARCO", "gen_by_qa_preference", 57, ""),
    (SP, 5, "GPT", "", "", "dataset=MARCO", "long_passage_preference", 40, ""),
    # Tables 6-9: raw pointwise scores (Table 6's NQ Mistral line is printed with the label MARCO)
    (SP, 6, "Mistral", "normal", "", "dataset=NQ;author=Mistral;passage=TRUE", "mean_score", 3.90, ""),
    (SP, 6, "Gemini", "normal", "", "dataset=TriviaQA;author=GPT-4o-mini;passage=TRUE", "mean_score", 4.06, ""),
    (SP, 7, "Gemini", "normal", "", "dataset=MARCO;author=Human;passage=FALSE", "mean_score", 2.39, ""),
    (SP, 7, "Gemini", "normal", "", "dataset=MARCO;author=Human;passage=FALSE", "sd_score", 0.93, ""),
    (SP, 8, "LLaMA", "rag", "", "dataset=TriviaQA;author=LLaMA;passage=TRUE", "mean_score", 2.81, ""),
    (SP, 8, "LLaMA", "rag", "", "dataset=TriviaQA;author=LLaMA;passage=TRUE", "sd_score", 1.30, ""),
    (SP, 9, "Mistral", "rag", "", "dataset=TriviaQA;author=Mistral;passage=FALSE", "mean_score", 3.41, ""),
    (SP, 9, "Mistral", "rag", "", "dataset=TriviaQA;author=Mistral;passage=FALSE", "sd_score", 1.47, ""),
]

# rows per table: (paper, table) -> the count; full grids as the product of their factors
SHAPES = {
    (AB, 1): 5 * 5 * 2 * 2,  # models x judges x contexts x (rho, tau)
    (AB, 2): 5 * 5 * 2 * 2,
    (AB, 3): 5 * 3 * 2 * 2,  # models x (pair_rank, pair_score, point) x contexts x (easy, hard)
    (AB, 4): 3 * 5 * 5 * 2,  # domains x models x judges x (rho, tau), w/o text only
    (AB, 5): 5 * (1 + 3 * 3),  # models x (w/o Filter + 3 filters x k in 1, 3, 5)
    (AB, 6): 3 * 5 * 5 * 2,
    (AB, 7): 9 + 8 + 2,  # DomainAuth, EntityAuth, RAGAuth numbers
    (AB, 8): 4 * 2 * 3 * 2 + 3 * 2,  # models x contexts x categories x (pred, bias) + the caption's true means and N
    (AB, 9): 5 * 2 * 3,  # models x contexts x derivations
    (AB, 10): 5 * 2 * 3,
    (AB, 11): 3 * 5 * 3,  # domains x models x derivations
    (AB, 12): 3 * 5 * 3,
    (SP, 1): 3 * 6 * 5,  # datasets x (5 models + Average) x (3 knowledge levels, length, perplexity)
    (SP, 2): 3 * 5 * 2 * (3 * 2 + 2),  # datasets x evaluators x prompts x (3 means +- sd, 2 diffs)
    (SP, 3): 3 * 5 * 6 * 3 + 7 * 3,  # datasets x evaluators x (5 other authors + Aggregated) x 3 + the Average row
    (SP, 4): 2 * 2,
    (SP, 5): 2 * 2,
    (SP, 6): 3 * 5 * 6 * 2,  # datasets x evaluators x authors x (mean, sd)
    (SP, 7): 3 * 5 * 6 * 2,
    (SP, 8): 3 * 5 * 6 * 2,
    (SP, 9): 3 * 5 * 6 * 2,
}
GRIDS = [(AB, t) for t in (1, 2, 3, 4, 6, 9, 10, 11, 12)] + [(SP, t) for t in (1, 4, 5, 6, 7, 8, 9)]


@pytest.fixture(scope="module")
def frame():
    return as_columns(load())  # the 11-column layout the pins are written in


@pytest.mark.parametrize("pinned", PINNED, ids=[f"{p[0]}-T{p[1]}-{p[2]}-{p[3]}-{p[5]}-{p[6]}" for p in PINNED])
def test_pinned_values(frame, pinned):
    *key, value, mark = pinned
    rows = frame
    for column, want in zip(KEY, key):
        rows = rows[rows[column] == want]
    assert len(rows) == 1, f"{key}: {len(rows)} rows"
    assert rows.iloc[0]["value"] == pytest.approx(value, abs=1e-9)
    assert rows.iloc[0]["mark"] == mark


def test_enough_values_are_pinned_across_the_tables():
    assert len(PINNED) >= 40
    assert {(p[0], p[1]) for p in PINNED} == set(SHAPES)


def test_each_table_has_its_shape(frame):
    counts = frame.groupby(["paper", "table"]).size().to_dict()
    assert counts == SHAPES
    for paper, table in GRIDS:
        rows = frame[(frame["paper"] == paper) & (frame["table"] == table)]
        grid = 1
        for column in ("model", "judge", "context", "setting", "metric"):
            grid *= rows[column].nunique()
        assert grid == len(rows), f"{paper} Table {table}: not a full grid"


def test_keys_are_unique(frame):
    assert not frame.duplicated(list(KEY)).any()


def test_columns_marks_and_vocabulary(frame):
    assert tuple(frame.columns) == COLUMNS
    marks = {m for cell in frame["mark"] if cell for m in cell.split("+")}
    assert marks <= set(MARKS)
    ab, sp = frame[frame["paper"] == AB], frame[frame["paper"] == SP]
    assert set(ab["context"]) == {"", WO, W} and set(sp["context"]) == {""}
    assert set(ab[ab["table"].isin([1, 2, 4, 6])]["judge"]) == {"point", "list_rank", "list_score", "pair_rank",
                                                                 "pair_score"}
    assert set(ab[ab["table"] >= 9]["judge"]) == {"PairRank", "PointScore_Bbl", "PointScore_Pt"}
    assert set(ab[ab["table"] == 5]["judge"]) == {"no_filter", "relevance", "utility", "authority"}
    assert all(w.startswith(f"submission Table {t},") for w, t in zip(ab["where"], ab["table"]))
    assert all(w.startswith(f"Table {t},") for w, t in zip(sp["where"], sp["table"]))


def test_each_paper_keys_its_numbers_by_its_own_parts(tmp_path):
    """AuthorityBench's TSV has the 11 columns; the self-preference TSV names its own parts (no judge, context or
    setting column). The same numbers written in the 11-column layout (the paper's legacy map: judge holds the
    prompt) load to the same keys: a paper's older file still loads."""
    assert tuple(load(AB).columns) == COLUMNS
    sp = load(SP)
    assert tuple(sp.columns) == ("paper", "table", "model", "prompt", "dataset", "author", "passage", "other",
                                 "metric", "value", "mark", "where", "note")
    assert paper_of(SP).legacy == {"judge": "prompt"}
    shutil.copy(DIRECTORY / PAPERS[AB], tmp_path / PAPERS[AB])
    old = as_columns(load_text(SP))
    (tmp_path / PAPERS[SP]).write_text("\t".join(COLUMNS) + "\n" + "".join(
        "\t".join(str(r[c]) for c in COLUMNS) + "\n" for r in old.to_dict("records")), encoding="utf-8")
    again = load(SP, directory=tmp_path)
    assert "prompt" in again.columns and "judge" not in again.columns  # the legacy column renamed on load
    assert [(r.key, r.value, r.mark) for r in rows_from_frame(again)] == [
        (r.key, r.value, r.mark) for r in rows_from_frame(sp)]
    table2 = [r.key for r in rows_from_frame(sp) if r.key.table == 2 and r.key.part("prompt") == "rag"]
    assert len(table2) == 120 and {k.part("judge") for k in table2} == {""}


def test_a_header_names_its_parts_once_between_table_and_metric(tmp_path):
    for name in PAPERS.values():
        shutil.copy(DIRECTORY / name, tmp_path / name)
    path = tmp_path / PAPERS[SP]
    lines = path.read_text().split("\n")
    for header in (lines[0].replace("\tother\t", "\tauthor\t"),  # a part twice
                   lines[0].replace("\tother\t", "\tnote\t"),  # a column that is no part
                   lines[0].replace("paper\ttable", "table\tpaper")):
        path.write_text("\n".join([header] + lines[1:]))
        with pytest.raises(InputError, match=r"selfpref\.tsv: line 1: header .*expected the columns paper, table, "
                                             r"then the paper's key parts \(each once, e.g\. model\)"):
            load(SP, directory=tmp_path)


def test_a_part_value_cannot_hold_the_packing_separator(tmp_path):
    """A part's value with ';' would read back as two parts from the run's 11-column files: a named error."""
    for name in PAPERS.values():
        shutil.copy(DIRECTORY / name, tmp_path / name)
    path = tmp_path / PAPERS[SP]
    lines = path.read_text().split("\n")
    fields = lines[1].split("\t")
    fields[4] = "NQ;x"  # the dataset column
    path.write_text("\n".join([lines[0], "\t".join(fields)] + lines[2:]))
    with pytest.raises(InputError, match=r"selfpref\.tsv: line 2, column 'dataset': found 'NQ;x'; expected a value "
                                         r"without ';'"):
        load(SP, directory=tmp_path)


def test_a_label_names_the_paper_parts_first():
    from authbench.claims.keys import place_key

    key = place_key(2, "diff_h_minus_m", passage="TRUE", dataset="NQ", author="self", prompt="rag", model="LLaMA")
    assert str(key) == "table=2 model=LLaMA prompt=rag author=self dataset=NQ passage=TRUE metric=diff_h_minus_m"
    ab = place_key(3, "pair_accuracy", difficulty="hard", context="w_text", judge="point", model="Qwen3-8B")
    assert str(ab) == "table=3 model=Qwen3-8B judge=point context=w_text difficulty=hard metric=pair_accuracy"
    assert place_key(1, "rho", model="M", judge="") == place_key(1, "rho", model="M")  # an empty part is none


def test_load_one_paper_and_the_models():
    assert set(load(AB)["paper"]) == {AB} and set(load(SP)["paper"]) == {SP}
    assert paper_models(AB) == ["Llama-3-8B-Instruct", "Llama-3.1-8B-Instruct", "Qwen3-14B", "Qwen3-32B", "Qwen3-8B"]
    assert paper_models(SP) == ["GPT", "GPT-3.5", "GPT-4o-mini", "Gemini", "LLaMA", "Mistral"]
    with pytest.raises(ValueError, match="unknown paper 'authbench'"):
        load("authbench")


def _copy(tmp_path):
    for name in PAPERS.values():
        shutil.copy(DIRECTORY / name, tmp_path / name)
    return tmp_path / PAPERS[AB]


def _replace_cell(path, line, column, text):
    lines = path.read_text().split("\n")
    fields = lines[line - 1].split("\t")
    fields[COLUMNS.index(column)] = text
    lines[line - 1] = "\t".join(fields)
    path.write_text("\n".join(lines))


def test_a_non_numeric_value_names_file_line_and_column(tmp_path):
    path = _copy(tmp_path)
    _replace_cell(path, 7, "value", "41,97")
    message = r"authoritybench\.tsv: line 7, column 'value': found '41,97'; expected a number"
    with pytest.raises(InputError, match=message):
        load(AB, directory=tmp_path)
    load(SP, directory=tmp_path)  # the other file is untouched


@pytest.mark.parametrize("column, text, expected", [
    ("mark", "bold+italic", "expected empty or bold, underline, dagger joined by '+'"),
    ("context", "w/o", "expected one of '', 'wo_text', 'w_text'"),
    ("table", "T1", "expected the table number"),
    ("paper", SP, "expected 'authoritybench'"),
])
def test_other_bad_cells(tmp_path, column, text, expected):
    path = _copy(tmp_path)
    _replace_cell(path, 12, column, text)
    with pytest.raises(InputError, match=re.escape(f"line 12, column '{column}': found '{text}'; {expected}")):
        load(AB, directory=tmp_path)


def test_a_duplicate_key_and_a_wrong_header(tmp_path):
    path = _copy(tmp_path)
    lines = path.read_text().split("\n")
    path.write_text("\n".join(lines[:3] + [lines[1]] + lines[3:]))
    with pytest.raises(InputError, match="line 4, columns paper, table, .*the key of line 2 too"):
        load(AB, directory=tmp_path)
    path.write_text("\n".join([lines[0].replace("where", "source")] + lines[1:]))
    with pytest.raises(InputError, match="line 1: header .*expected the columns paper, table"):
        load(AB, directory=tmp_path)
