"""Question form: the semantic retriever embeds a question as the statement it asks about.

A sentence embedder places "What do Melanie's kids like?" near other *questions* about
Melanie's kids as much as near the turn that answers it ("They love learning about animals …");
the question's frame — the wh-word, "kind of", the auxiliary — is shared with every question and
with no answer. Before the query is embedded (the vector retriever only; full text plans its own
terms, :meth:`~remem.stores.shared.search_text.FullTextConfig.query_terms`), the leading frame
is cut:

* a wh-word (``what who whom whose which where when why how``, also as "what's", "who're"),
  then an optional "kind/type/sort of" and an optional "many/much/long/often/old/far", then an
  optional auxiliary (``is are was were am do does did has have had can could would will should
  might may``, also with "n't");
* or, for a yes/no question, a leading auxiliary alone ("Did Melanie go camping?").

The rest is kept as written, the final "?" dropped: "When did Caroline go to the support
group?" → "Caroline go to the support group", "What's my job?" → "my job". A question with
nothing after its frame ("What?") is embedded unchanged, and so is a text that does not begin
with a frame. English only: another language's question passes through as it is (no word of it
matches), so the stage is safe to leave on for them.

Measured on the LoCoMo dev split (``python benches/locomo_stages.py --data DIR --out DIR
--embedder local --question-form``; the README's "Question form" paragraph has the figures).

>>> statement_form("What do Melanie's kids like?")
"Melanie's kids like"
>>> statement_form("Did Melanie go camping?")
'Melanie go camping'
>>> statement_form("How many times has she been to the beach?")
'times has she been to the beach'
>>> statement_form("Tell me about the beach trip")
'Tell me about the beach trip'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from remem.errors import ConfigError

__all__ = ["QuestionFormConfig", "statement_form", "statement_forms"]

_APOSTROPHE = "['\u2019]"  # ' or the typographic one
_AUX = r"(?:is|are|was|were|am|do|does|did|has|have|had|can|could|would|will|should|might|may)"
_WH = r"(?:what|which|who|whom|whose|where|when|why|how)"
_FRAME = re.compile(
    rf"^\s*(?:{_WH}(?:{_APOSTROPHE}(?:s|re))?"
    r"(?:\s+(?:kinds?|types?|sorts?)\s+of)?"
    r"(?:\s+(?:many|much|long|often|old|far))?"
    rf"(?:\s+{_AUX}(?:n{_APOSTROPHE}t)?)?"
    rf"|{_AUX}(?:n{_APOSTROPHE}t)?)\b\s*",
    re.IGNORECASE,
)
_TAIL = re.compile(r"[\s?!.]+$")


@dataclass(frozen=True)
class QuestionFormConfig:
    """``enabled``: embed questions in their statement form (module docstring)."""

    enabled: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"question_form.enabled must be true or false, got {self.enabled!r}")


def statement_form(question: str) -> str:
    """``question`` without its leading question frame and final "?" (module docstring); the
    question itself when nothing would remain."""
    frame = _FRAME.match(question)
    if frame is None:
        return question
    rest = _TAIL.sub("", question[frame.end() :]).strip()
    return rest or question


def statement_forms(queries: Sequence[str], config: QuestionFormConfig) -> list[str]:
    """What the semantic retriever embeds for each query: its statement form when the stage is
    on, else the query unchanged."""
    if not config.enabled:
        return list(queries)
    return [statement_form(q) for q in queries]
