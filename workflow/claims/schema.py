"""The claims file's JSON schema (``claims.schema.yaml`` beside this module),
checked with :mod:`jsonschema`; every violation becomes one line of a
:class:`~authbench.errors.ConfigError` naming the file, the claim id and the
key, with the allowed values where the schema lists them (an unknown
``test.kind`` names the known kinds)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Mapping

import jsonschema
import yaml
from authbench.errors import ConfigError, excerpt

SCHEMA_PATH = Path(__file__).parent / "claims.schema.yaml"
MAX_ERRORS = 10  # the most violations one message lists


@functools.lru_cache(maxsize=1)
def schema() -> dict:
    """The parsed schema (cached: do not modify it)."""
    return yaml.safe_load(SCHEMA_PATH.read_text(encoding="utf-8"))


def known_kinds() -> list[str]:
    """The kinds the schema allows for ``test.kind``."""
    return list(schema()["$defs"]["test"]["properties"]["kind"]["enum"])


def _where(doc: Any, path: list) -> str:
    """``claim AB-03: test.direction`` for a path inside a claim; the dotted
    key path otherwise."""
    if len(path) >= 2 and path[0] == "claims" and isinstance(path[1], int):
        claim = doc["claims"][path[1]]
        name = claim.get("id") if isinstance(claim, Mapping) else None
        head = f"claim {name}" if isinstance(name, str) else f"claims[{path[1]}]"
        rest = ".".join(map(str, path[2:]))
        return f"{head}: {rest}" if rest else head
    return ".".join(map(str, path)) or "(top level)"


def _message(error: jsonschema.ValidationError) -> str:
    path = list(error.absolute_path)
    if error.validator == "enum":
        what = "known kinds" if path[-1:] == ["kind"] else "allowed values"
        return f"{excerpt(error.instance)} is not one of the {what}: {', '.join(map(str, error.validator_value))}"
    if error.validator == "oneOf" and "description" in error.schema:
        return f"{excerpt(error.instance)}: expected {error.schema['description']}"
    forbidden = error.validator_value.get("required") if error.validator == "not" and isinstance(
        error.validator_value, Mapping) else None
    if forbidden:  # a key that only goes with some directions (tolerance)
        direction = error.instance.get("direction") if isinstance(error.instance, Mapping) else None
        return (f"{', '.join(map(repr, forbidden))} is not allowed"
                + (f" with direction {direction!r}" if direction is not None else ""))
    return error.message


def validate(doc: Any, path: str | Path) -> None:
    """Check a parsed claims file against the schema; a
    :class:`ConfigError` listing the violations (file, claim id, key, what is
    allowed) when it does not conform."""
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return
    lines = [f"  {_where(doc, list(e.absolute_path))}: {_message(e)}" for e in errors[:MAX_ERRORS]]
    more = f"\n  ... and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
    raise ConfigError(f"{path}: the claims file does not follow the schema ({SCHEMA_PATH.name}, docs/claims.md):\n"
                      + "\n".join(lines) + more)
