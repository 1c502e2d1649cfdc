"""Prompt templates are YAML data files under resources/prompts/; this is the
one reader and placeholder checker every study's template type uses.

:func:`read_template_file` reads a file's mapping and checks its string keys;
:func:`check_placeholders` parses ``str.format`` text with
:class:`string.Formatter` and rejects a missing required placeholder or an
unknown one, naming the file. The study modules define what their templates
hold (:mod:`authbench.studies.authority.prompts`, the RAGAuth and
self-preference templates).
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Iterable

import yaml
from authbench.errors import TemplateError


def placeholders(text: str, path: Path | str = "template") -> list[str]:
    """The named fields of ``str.format`` text, in order, each once (an empty name for ``{}``)."""
    try:
        return list(dict.fromkeys(name for _, name, _, _ in string.Formatter().parse(text) if name is not None))
    except ValueError as err:
        raise TemplateError(f"{path}: template is not valid format syntax: {err}") from None


def check_placeholders(text: str, path: Path | str, required: Iterable[str], allowed: Iterable[str] | None = None,
                       part: str = "template") -> set[str]:
    """The placeholders of ``text``; every one of ``required`` must be there and
    nothing outside ``allowed`` (``None``: exactly ``required``). ``part`` names
    the checked text in the error (``template``, ``item line`` ...)."""
    found = set(placeholders(text, path))
    required = set(required)
    exact = allowed is None
    allowed = required if exact else set(allowed) | required
    if exact and found != required:
        raise TemplateError(f"{path}: {part} uses {sorted(found)}, expected exactly {sorted(required)}")
    if required - found:
        raise TemplateError(f"{path}: {part} lacks placeholder(s) {sorted(required - found)}")
    if found - allowed:
        raise TemplateError(f"{path}: unknown placeholder(s) {sorted(found - allowed)} in the {part}; "
                            f"allowed: {sorted(allowed)}")
    return found


def read_template_file(path: Path, keys: tuple[str, ...]) -> dict:
    """A template file's YAML mapping; each of ``keys`` must be a string."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise TemplateError(f"{path}: cannot read template: {err}") from None
    if not isinstance(data, dict):
        raise TemplateError(f"{path}: expected a mapping with {', '.join(keys)}")
    for key in keys:
        if not isinstance(data.get(key), str):
            raise TemplateError(f"{path}: missing key '{key}'")
    return data
