"""The pipeline's error classes: one base, :class:`PipelineError`, that the
command line catches (one line on stderr, exit code 2, never a traceback).

Each subclass also keeps the built-in base it always had (``ValueError`` or
``RuntimeError``), so ``except ValueError`` in a caller still catches it.
"""

from __future__ import annotations


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


class FetchError(PipelineError, RuntimeError):
    """A request failed for good (after retries, or with an unusable answer)."""


class ModelError(PipelineError, RuntimeError):
    """A model file or folder is missing, wrong (checksum) or cannot be loaded."""


class EngineError(PipelineError, RuntimeError):
    """An engine failed for good on a cell: the message names the model, the
    cell where known, and the request (prompt id) it failed on."""


class CacheError(PipelineError, RuntimeError):
    """The response cache cannot be written (e.g. a full disk)."""
