"""AuthorityBench's judge cells as the plan sees them, before any model
runs (:attr:`authbench.studies.registry.Study.plan_jobs`): one
:class:`~authbench.cells.planned.PlanJob` per cell, its requests listed as
calls and rendered only when sampled (:class:`ItemBatch`). Cells with the
same prompts (every model's cell of one dataset, setting, judge and
template) share one batch and one ``group``.

The requests come from the instances the workflow writes before its first
model job; while DomainAuth's homepage texts are not fetched (its with-text
cells), the plan draws the instances itself from stand-in texts
(:func:`domain_instances`): every legitimate domain of
``domainauth.source`` with a text of exactly ``domainauth.text_max_words``
words (the truncation limit: an upper bound per page; a homepage that gives
fewer words costs less, one that gives none is dropped), written in plain
English web-page words (:data:`STAND_IN_WORDS`), the lists and pairs drawn
as the ``domainauth_sample`` rule draws them (the same counts).
``benchmarks/standins.py`` writes the same texts to disk.

Sending order: the engine sends a cell's prompts sorted. An
:class:`ItemBatch` sorts its calls by the values its template shows, in the
order the template shows them: the same order as the rendered prompts,
except where one value is a prefix of another and the template's next
character sorts before the longer value's (the two neighbours then swap,
which moves a few tokens of prefix reuse)."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from authbench.cells.planned import Batch, Estimated, PlanContext, PlanJob, fork_map, generate_of, new_cache
from authbench.config import GenerateConfig, models_for, split_model
from authbench.records import read_jsonl
from authbench.studies.authority.consistency import ORDER_SUFFIX
from authbench.studies.authority.judges import judge_of
from authbench.studies.authority.judges.pairwise import flip_keys, position_flip

STAND_IN = "[rehearsal stand-in]"
STAND_IN_WORDS = (
    "welcome to our official site find news services products and support information about our organization "
    "read the latest updates contact us learn more about our history mission and team browse resources reports "
    "events and publications sign in to your account or create a new one to access member content"
).split()


def stand_in_text(domain: str, words: int) -> str:
    """A homepage text of exactly ``words`` words: the marker, the domain, then web-page words."""
    head = [*STAND_IN.split(), domain, "-"]
    fill = max(0, words - len(head))
    body = (STAND_IN_WORDS * (fill // len(STAND_IN_WORDS) + 1))[:fill]
    return " ".join((head + body)[:words])



def texts_missing(config: Mapping[str, Any], exists) -> bool:
    """Whether DomainAuth's configured homepage texts do not exist yet."""
    dom = config.get("domainauth") or {}
    return ("domainauth" in config.get("studies", ()) and bool(dom.get("text"))
            and "w_text" in config.get("contexts", ()) and not exists(dom["text"]))


def domain_instances(config: Mapping[str, Any], estimated: Estimated) -> dict[str, list[dict]]:
    """DomainAuth's instances per setting, drawn as the workflow draws them,
    from every legitimate domain with a stand-in text (module docstring)."""
    from authbench.studies.authority.domains import build_domain_labels
    from authbench.studies.authority.labels import label_spec
    from authbench.studies.authority.sampling import sample_all

    dom = config["domainauth"]
    words = int(dom["text_max_words"])
    spec = label_spec(dom.get("label"), "page_rank", "integer", "domainauth.label")
    built = build_domain_labels(dom["source"], dom.get("status_filter"), dom["categories"], None, spec)
    domains = [dataclasses.replace(d, text=stand_in_text(d.domain, words)) for d in built.domains]
    estimated.notes.append(
        f"homepage texts ({dom['text']}) are not fetched yet: each of the {len(domains):,} domains stands in with a "
        f"text of domainauth.text_max_words = {words} words (the truncation limit, an upper bound per page: a "
        "homepage with fewer words costs less, one with none is dropped) in plain web-page words; lists and pairs "
        "drawn from them as the workflow draws them (the same counts)")
    return sample_all(domains, dom["sampling"], config["seed"])


class ItemBatch(Batch):
    """An AuthorityBench cell's calls ``(request id, instance index, item
    positions)`` over ``instances``, rendered by ``template`` on demand."""

    def __init__(self, template, judge: str, instances: Sequence[Mapping], calls: list, generate: GenerateConfig,
                 constrained: bool, name: str):
        from authbench.studies.authority.judges import judge_of
        from authbench.studies.authority.sampling import item_key

        self.template, self.judge, self.instances, self.calls = template, judge_of(judge), instances, calls
        self.generate, self.constrained, self.name = generate, constrained, name
        self.format = self.judge.output
        self._key = item_key
        self._cache = new_cache()

    def __len__(self) -> int:
        return len(self.calls)

    def _items(self, call) -> list[Mapping]:
        items = self.instances[call[1]]["items"]
        return [items[p] for p in call[2]]

    def _keys(self) -> list[list[str]]:
        """Per instance, the key of each item (computed once)."""
        if "item_keys" not in self._cache:
            self._cache["item_keys"] = [[self._key(it) for it in inst["items"]] for inst in self.instances]
        return self._cache["item_keys"]

    def identities(self) -> list[tuple]:
        if "identities" not in self._cache:
            keys, path = self._keys(), self.template.path
            self._cache["identities"] = [(path, *(keys[k][p] for p in positions)) for _, k, positions in self.calls]
        return self._cache["identities"]

    def prompt(self, i: int) -> str:
        call = self.calls[i]
        return self.judge.render(self.template, self.instances[call[1]]["items"], call[2])

    def outputs(self) -> list[tuple[str, int]]:
        return [(self.format, len(c[2])) for c in self.calls]

    def output_counts(self, indices: np.ndarray) -> dict[tuple[str, int], int]:
        if "sizes" not in self._cache:
            self._cache["sizes"] = np.fromiter((len(c[2]) for c in self.calls), dtype=np.int64, count=len(self.calls))
        sizes, counts = np.unique(self._cache["sizes"][indices], return_counts=True)
        return {(self.format, int(n)): int(c) for n, c in zip(sizes, counts)}

    def _sort_keys(self) -> list[tuple]:
        shape = self.judge.shown_fields(self.template)
        key_field = "domain" if self.template.benchmark == "domainauth" else "entity"
        firsts = {}
        for slot, f in shape:
            firsts.setdefault(slot, f)
        if all(f == key_field for f in firsts.values()):
            # each item shows its key first, and its other fields follow from the key: sort by keys alone
            if shape[0][0] in (None, 0):  # a list shows its items in order, a pair its first item first
                return self.identities()  # (template, keys in the order shown)
            keys = self._keys()
            return [tuple(keys[k][p] for p in reversed(positions)) for _, k, positions in self.calls]
        keys = []
        for c in self.calls:
            items = self._items(c)
            if shape[0][0] is None:  # every item in turn
                keys.append(tuple(str(it.get(f, "")) for it in items for _, f in shape))
            else:
                keys.append(tuple(str(items[slot].get(f, "")) for slot, f in shape))
        return keys


def _flip(args: tuple) -> bool:
    return position_flip(*args)


def _jobs(study: str, config: Mapping[str, Any], kind=None) -> list[dict]:
    """The jobs of ``kind`` (default: the cells, :data:`~authbench.studies.authority.kinds.JUDGE`) on ``study``'s
    datasets (``domainauth``, or ``entityauth``: ``entityauth/<set>``)."""
    from authbench.studies.authority.kinds import JUDGE

    return [wc for wc in (kind or JUDGE).jobs(config) if wc["dataset"].split("/", 1)[0] == study]


def plan_jobs(study: str, config: Mapping[str, Any], ctx: PlanContext) -> Iterator[PlanJob]:
    """The judge cells of ``study`` (``domainauth`` or ``entityauth``) and their reversed jobs, with their
    batches: the jobs, cell ids and inputs of their job kinds (:mod:`authbench.studies.authority.kinds`)."""
    from authbench.studies.authority.kinds import JUDGE, JUDGE_REVERSED
    from authbench.studies.authority.prompts import load_template

    models = models_for(config, study)
    by_prompts: dict[tuple, list] = defaultdict(list)  # cells with the same prompts share one batch
    for wc in _jobs(study, config):
        inputs = JUDGE.input_paths(config, wc)
        by_prompts[(wc["dataset"], wc["setting"], wc["judge"], wc["context"], inputs["template"])].append(
            (wc, inputs["instances"]))
    reversed_cells = {JUDGE.cell(wc) for wc in _jobs(study, config, JUDGE_REVERSED)}  # config position_consistency
    estimate_domains = study == "domainauth" and texts_missing(config, ctx.exists)
    instance_sets: dict[tuple, list] = {}
    flips: dict[str, dict] = defaultdict(dict)  # the position coin flips of one instance file's pairs
    for (dataset, setting, judge, context, template), group in by_prompts.items():
        if (dataset, setting) not in instance_sets:
            if estimate_domains:
                if not instance_sets:
                    for s, rows in domain_instances(config, ctx.estimated).items():
                        instance_sets[(dataset, s)] = rows
            else:
                instance_sets[(dataset, setting)] = read_jsonl(group[0][1])
        instances = instance_sets[(dataset, setting)]
        memo = flips[f"{dataset}/{setting}"]
        the_judge = judge_of(judge)
        if the_judge.flips_positions and not memo:  # every pair judge of these instances shares their flips
            keys = flip_keys(setting, instances)
            memo.update(zip(keys, fork_map(_flip, [(config["seed"], *k) for k in keys], ctx.workers)))
        calls = the_judge.calls(setting, instances, config["seed"], memo)
        name = f"{dataset}/{setting}/{judge}/{context}/{template}"
        shared = ItemBatch(load_template(template), judge, instances, calls, GenerateConfig(),
                           config["constrained_decoding"], name)
        both = [wc for wc, _ in group if JUDGE.cell(wc) in reversed_cells]
        other = ItemBatch(shared.template, judge, instances, the_judge.reversed_calls(calls), GenerateConfig(),
                          config["constrained_decoding"], name + ORDER_SUFFIX) if both else None
        for wc, _ in group:
            model = split_model(wc["model"])[0]
            yield PlanJob(study, model, JUDGE.cell(wc), judge, [shared.using(generate_of(models[model]))],
                          group=shared.name)
        for wc in both:  # a group's jobs follow one another (authbench.plan.build_plan)
            model = split_model(wc["model"])[0]
            yield PlanJob(study, model, JUDGE_REVERSED.cell(wc), judge, [other.using(generate_of(models[model]))],
                          group=other.name)


def plan_inputs(study: str, config: Mapping[str, Any], layout, exists) -> list[str]:
    """The files :func:`plan_jobs` reads: the instances of every cell of
    ``study`` (not DomainAuth's while its homepage texts are not fetched: the
    plan draws them itself, from ``domainauth.source``, which is then its
    input: labels a fetcher writes are fetched before the plan) and every
    cell's template."""
    from authbench.studies.authority.kinds import JUDGE

    inputs = [JUDGE.input_paths(config, wc) for wc in _jobs(study, config)]
    no_texts = study == "domainauth" and texts_missing(config, exists)
    out = [config["domainauth"]["source"]] if no_texts else [i["instances"] for i in inputs]
    return out + [i["template"] for i in inputs]


def why_empty(study: str, config: Mapping[str, Any]) -> str | None:
    """Why ``study`` plans no cell (None: it plans some)."""
    if _jobs(study, config):
        return None
    return f"{study}: 'judges', 'contexts' and 'settings' select no cell"
