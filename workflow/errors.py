"""The pipeline's error classes: one base, :class:`PipelineError`, that the
command line catches (one line on stderr, exit code 2, never a traceback).

Each subclass also keeps the built-in base it always had (``ValueError`` or
``RuntimeError``), so ``except ValueError`` in a caller still catches it.
"""

from __future__ import annotations

import json

# the most characters of offending content an error message quotes
QUOTE_LIMIT = 200


def excerpt(value: object, limit: int = QUOTE_LIMIT, quote: bool = True) -> str:
    """Offending content as an error message quotes it: a string in quotes
    (``repr``; ``quote=False``: as it is, e.g. a joined header), a JSON
    record (dict, list) as JSON, anything else by ``repr``. Past ``limit`` characters it is cut, with an ellipsis and
    the total length, so that a 4 MB line never becomes a 4 MB message:
    ``'Lorem ipsum …'… (4,194,304 characters)``. Every message that quotes
    input content goes through here."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, (dict, list, tuple)):
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    else:
        text = repr(value)
    if len(text) <= limit:
        return repr(text) if quote and isinstance(value, str) else text
    cut = text[:limit]
    return f"{repr(cut) if quote and isinstance(value, str) else cut}… ({len(text):,} characters)"


class PipelineError(Exception):
    """A known failure whose message says what is wrong and where."""


class InputError(PipelineError, ValueError):
    """Bad input file: the message names the file, the line and the column."""


class ConfigError(PipelineError, ValueError):
    """A config value is wrong; the message names the key and what is allowed."""


class TemplateError(PipelineError, ValueError):
    """A prompt template is malformed or does not fit the cell that reads it."""


class SamplingError(PipelineError, ValueError):
    """The labeled corpus cannot supply what the config asks for."""


class LabelError(PipelineError, ValueError):
    """Counts that cannot be turned into levels; the message names the value."""


class KeyFormatError(PipelineError, ValueError):
    """An API key read from the environment cannot be sent (a character outside
    printable ASCII); the message names the variable, never the value."""


class FetchError(PipelineError, RuntimeError):
    """A request failed for good (after retries, or with an unusable answer)."""


class ModelError(PipelineError, RuntimeError):
    """A model file or folder is missing, wrong (checksum) or cannot be loaded."""


class EngineError(PipelineError, RuntimeError):
    """An engine failed for good on a cell: the message names the model, the
    cell where known, and the request (prompt id) it failed on."""


class CacheError(PipelineError, RuntimeError):
    """The response cache cannot be written (e.g. a full disk)."""


class OutputError(PipelineError, RuntimeError):
    """An output file cannot be written (e.g. a full disk): the message names
    the file; the file written before under that name is kept."""


class SetupError(PipelineError, RuntimeError):
    """The installation cannot run the workflow (e.g. the jobs' Python lacks
    the package); the message says what to run."""
