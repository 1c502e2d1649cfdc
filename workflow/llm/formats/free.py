"""``free``: free text (the self-preference study's passage writing and
answers). Not parsed and never constrained: only ``generate.max_tokens``
bounds it. The instant engine answers with a fixed sentence that names
passage 1 or 2 (by the prompt's hash).
"""

from __future__ import annotations

from authbench.llm.formats._base import ReplyFormat

FREE_REPLY = "Answer: instant reply; the answer is retrieved from passage {k}."

FORMAT = ReplyFormat(
    name="free",
    parse=None,
    statuses=(),
    grammar=None,
    slots=None,
    max_tokens=lambda n: 0,
    instant=lambda digest, slots: (FREE_REPLY.format(k=1 + digest[0] % 2), []),
)
