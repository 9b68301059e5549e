"""Questions that presuppose a fact about the speaker: "do all nurses work this many weekends,
or is it just me?" says the speaker is a nurse.

The grammar drops every question (a question asks, it does not tell); this pass reads one kind
back: a question that compares the speaker with a group — "all", "other", "most" or "fellow"
before a plural job ("do other software engineers …", "are all line cooks …") — and ends (or
starts) with "just me" ("or just me?", "or is it just me?", "is it just me or …"), typed with
or without the question mark. The job is the speaker's: ``job_title = <job>``. The sentence
must be asked (start with "do", "are", "is" …), not reported ("I asked whether all nurses …").
Nothing else in a question is read.

    presupposed("Do all urban planners have this much paperwork or just me?", at)
    # [Statement(attribute="job_title", value="urban planner", ...)]
    presupposed("Do all nurses earn this little?", at)   # [] — no "just me"
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from remem.extraction.grammar.guards import skip_lead
from remem.extraction.grammar.lexicon import CLASSES, words
from remem.extraction.grammar.statement import Statement
from remem.extraction.grammar.tokens import Sentence, Token, sentences

__all__ = ["presupposed"]

_JOB_HEAD = CLASSES["job_head"]
_GROUP = words("all other most fellow")
_ENDINGS: tuple[tuple[str, ...], ...] = (
    ("or", "just", "me"),
    ("or", "only", "me"),
    ("or", "is", "it", "just", "me"),
    ("or", "is", "that", "just", "me"),
    ("or", "am", "i", "the", "only", "one"),
)
_ASKING = words("do does did are is am don't dont doesn't aren't")
_OPENINGS: tuple[tuple[str, ...], ...] = (("is", "it", "just", "me", "or"),)
_NOT_MODIFIER = words(
    "the a an my our your their his her this that these those of and or to in at for with "
    "who which you i we they it is are do does did have has be been me"
)
_MAX_MODIFIERS = 2
"""Words allowed before the job head ("senior software engineers"); more is not a job."""
_CONFIDENCE = 0.8
"""Below a stated fact's 0.9: the job is implied, not said."""


def presupposed(
    message: str, at: datetime, turn_id: str = "", said: Sequence[Sentence] | None = None
) -> list[Statement]:
    """The speaker's job implied by a "… or just me?" question in ``message`` (module
    docstring); at most one statement per question, none for any other sentence. ``said``:
    ``sentences(message)`` when the caller has it already."""
    out: list[Statement] = []
    for sentence in sentences(message) if said is None else said:
        job = _job_of(sentence)
        if job is not None:
            article = "an" if job[:1] in "aeiou" else "a"
            out.append(
                Statement(
                    "job_title",
                    job,
                    f"The user works as {article} {job}.",
                    turn_id,
                    confidence=_CONFIDENCE,
                    kind="job",
                )
            )
    return out


def _job_of(sentence: Sentence) -> str | None:
    tokens = [t for t in sentence.tokens if t.kind != "punct"]
    lead = skip_lead(tokens)
    lows = tuple(t.low for t in tokens[lead:])
    # asked, not reported: "I asked whether all nurses …, or just me" is someone's question
    if not lows or lows[0] not in _ASKING:
        return None
    if not (
        any(lows[-len(e) :] == e for e in _ENDINGS) or any(lows[: len(o)] == o for o in _OPENINGS)
    ):
        return None
    for i, t in enumerate(tokens):
        if t.low in _GROUP:
            job = _plural_job(tokens, i + 1)
            if job is not None:
                return job
    return None


def _plural_job(tokens: Sequence[Token], i: int) -> str | None:
    """A plural job starting at ``i`` ("urban planners" → "urban planner"), or None."""
    for k in range(i, min(len(tokens), i + _MAX_MODIFIERS + 1)):
        low = tokens[k].low
        single = _singular(low)
        if single is not None and single in _JOB_HEAD:
            return " ".join([*(t.low for t in tokens[i:k]), single])
        if tokens[k].kind != "word" or low in _NOT_MODIFIER:
            return None
    return None


def _singular(low: str) -> str | None:
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("ches", "shes", "sses")):
        return low[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return low[:-1]
    return None
