"""Prompt templates: YAML data files under resources/prompts/, checked on load.

A template file has ``judge``, ``context``, ``output`` (the reply format),
``source`` (where in the paper it comes from), ``template`` (``str.format``
syntax, literal braces doubled) and, for list judges, ``item`` (one line per
list item). Placeholders are checked with :class:`string.Formatter`: a missing
required one or an unknown one is an error naming the file.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import yaml

from .config import OUTPUT_FORMAT

# Placeholders each judge's template (and item line) must use, per context.
_TEMPLATE_FIELDS = {
    "point": {"wo_text": {"domain"}, "w_text": {"domain", "text"}},
    "pair_rank": {"wo_text": {"domain_a", "domain_b"}, "w_text": {"domain_a", "domain_b", "text_a", "text_b"}},
    "pair_score": {"wo_text": {"domain_a", "domain_b"}, "w_text": {"domain_a", "domain_b", "text_a", "text_b"}},
    "list_rank": {"wo_text": {"items", "n"}, "w_text": {"items", "n"}},
    "list_score": {"wo_text": {"items"}, "w_text": {"items"}},
}
_OPTIONAL_TEMPLATE_FIELDS = {"n", "last_id"}
_ITEM_FIELDS = {"wo_text": {"id", "domain"}, "w_text": {"id", "domain", "text"}}


class TemplateError(ValueError):
    pass


def _fields(text: str, path: Path) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as err:
        raise TemplateError(f"{path}: template is not valid format syntax: {err}") from None


@dataclass(frozen=True)
class PromptTemplate:
    path: str
    judge: str
    context: str
    output: str
    template: str
    item: str | None = None

    def render_point(self, item: Mapping) -> str:
        return self.template.format(domain=item["domain"], text=item.get("text", ""))

    def render_pair(self, a: Mapping, b: Mapping) -> str:
        return self.template.format(
            domain_a=a["domain"], domain_b=b["domain"], text_a=a.get("text", ""), text_b=b.get("text", "")
        )

    def render_list(self, items: Sequence[Mapping]) -> str:
        lines = "\n".join(
            self.item.format(id=i, domain=it["domain"], text=it.get("text", "")) for i, it in enumerate(items)
        )
        return self.template.format(items=lines, n=len(items), last_id=len(items) - 1)


def load_template(path: str | Path) -> PromptTemplate:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise TemplateError(f"{path}: cannot read template: {err}") from None
    if not isinstance(data, dict):
        raise TemplateError(f"{path}: expected a mapping with judge, context, output, template")
    for key in ("judge", "context", "output", "template"):
        if key not in data:
            raise TemplateError(f"{path}: missing key '{key}'")
    judge, context = data["judge"], data["context"]
    if judge not in _TEMPLATE_FIELDS or context not in _ITEM_FIELDS:
        raise TemplateError(f"{path}: unknown judge/context {judge!r}/{context!r}")
    if data["output"] != OUTPUT_FORMAT[judge]:
        raise TemplateError(f"{path}: judge {judge} replies in format {OUTPUT_FORMAT[judge]!r}, not {data['output']!r}")
    required = _TEMPLATE_FIELDS[judge][context]
    found = _fields(data["template"], path)
    allowed = required | (_OPTIONAL_TEMPLATE_FIELDS if judge.startswith("list") else set())
    if required - found:
        raise TemplateError(f"{path}: template lacks placeholder(s) {sorted(required - found)}")
    if found - allowed:
        raise TemplateError(f"{path}: unknown placeholder(s) {sorted(found - allowed)}; allowed: {sorted(allowed)}")
    item = data.get("item")
    if judge.startswith("list"):
        if not item:
            raise TemplateError(f"{path}: list judges need an 'item' line template")
        item_found = _fields(item, path)
        if item_found != _ITEM_FIELDS[context]:
            raise TemplateError(
                f"{path}: item line uses {sorted(item_found)}, expected exactly {sorted(_ITEM_FIELDS[context])}"
            )
    return PromptTemplate(str(path), judge, context, data["output"], data["template"], item)
