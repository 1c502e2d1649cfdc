"""AuthorityBench judge templates (resources/prompts/domainauth|entityauth/).

A template file has ``benchmark`` (``domainauth`` when absent, or
``entityauth``), ``judge``, ``context``, ``output`` (the reply format),
``source`` (where in the paper it comes from), ``template`` (``str.format``
syntax, literal braces doubled) and, for list judges, ``item`` (one line per
list item), checked by :func:`authbench.llm.prompts.check_placeholders`.

An optional ``example`` names the example reply the template's text shows
(``{{"A": 7, "B": 4}}``, ``[4] > [0]``), in the template's own syntax: it must
occur in ``template`` verbatim, so it cannot drift from the prompt, and it may
use only the list placeholders ``{n}``/``{last_id}``. The judge-validity
diagnostics count the replies that repeat it
(:mod:`authbench.studies.authority.diagnostics`); a template without one has
no example-copy diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from authbench.errors import TemplateError
from authbench.llm.prompts import check_placeholders, read_template_file
from authbench.studies.authority.judges import JUDGES

# The item fields a prompt may show, per benchmark and context. A PointJudge
# template uses them as they are ({domain}; the judge may add its own: EntityAuth's
# PointJudge prompt (H) shows the entity's own question), a PairJudge template
# with _a/_b suffixes ({domain_a}), a ListJudge item line together with {id};
# which placeholders a template must and may use is its judge's
# (authbench.studies.authority.judges).
ITEM_FIELDS = {
    "domainauth": {"wo_text": ("domain",), "w_text": ("domain", "text")},
    # the pair and list prompts of EntityAuth show names only (their question context is a pattern)
    "entityauth": {"wo_text": ("entity",)},
}


@dataclass(frozen=True)
class PromptTemplate:
    path: str
    judge: str
    context: str
    output: str
    template: str
    item: str | None = None
    benchmark: str = "domainauth"
    example: str | None = None

    def _values(self, item: Mapping, suffix: str = "") -> dict:
        names = JUDGES[self.judge].template_fields(ITEM_FIELDS[self.benchmark][self.context], self.benchmark)
        return {f"{n}{suffix}": item.get(n, "") for n in names}

    def render_point(self, item: Mapping) -> str:
        return self.template.format(**self._values(item))

    def render_pair(self, a: Mapping, b: Mapping) -> str:
        return self.template.format(**self._values(a, "_a"), **self._values(b, "_b"))

    def render_list(self, items: Sequence[Mapping]) -> str:
        names = ITEM_FIELDS[self.benchmark][self.context]
        lines = "\n".join(self.item.format(id=i, **{n: it.get(n, "") for n in names}) for i, it in enumerate(items))
        return self.template.format(items=lines, n=len(items), last_id=len(items) - 1)

    def example_reply(self, n: int | None = None) -> str | None:
        """The template's example reply as the prompt shows it for a list of
        ``n`` items (list judges), or None when the template declares none."""
        if self.example is None:
            return None
        return self.example.format(**JUDGES[self.judge].example_params(n))


def load_template(path: str | Path) -> PromptTemplate:
    path = Path(path)
    data = read_template_file(path, ("judge", "context", "output", "template"))
    judge, context = data["judge"], data["context"]
    benchmark = data.get("benchmark", "domainauth")
    if benchmark not in ITEM_FIELDS:
        raise TemplateError(f"{path}: unknown benchmark {benchmark!r}; expected one of {sorted(ITEM_FIELDS)}")
    if judge not in JUDGES or context not in ITEM_FIELDS[benchmark]:
        raise TemplateError(f"{path}: unknown judge/context {judge!r}/{context!r} for {benchmark}")
    asked = JUDGES[judge]
    if data["output"] != asked.output:
        raise TemplateError(f"{path}: judge {judge} replies in format {asked.output!r}, not {data['output']!r}")
    fields = ITEM_FIELDS[benchmark][context]
    required = asked.required_fields(fields, benchmark)
    check_placeholders(data["template"], path, required, required | asked.optional_fields)
    item = data.get("item")
    if asked.item_line:
        if not item:
            raise TemplateError(f"{path}: list judges need an 'item' line template")
        check_placeholders(item, path, {"id", *fields}, part="item line")
    example = data.get("example")
    if example is not None:
        if not isinstance(example, str) or not example.strip():
            raise TemplateError(f"{path}: 'example' must be the example reply's text, got {example!r}")
        if example not in data["template"]:
            raise TemplateError(f"{path}: the example {example!r} does not occur in the template; "
                                "copy it from the template's text (with its doubled braces)")
        check_placeholders(example, path, set(), asked.optional_fields, part="example")
    return PromptTemplate(str(path), judge, context, data["output"], data["template"], item, benchmark, example)
