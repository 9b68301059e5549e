"""Slot reader ``condition``: a long-term health condition, from a closed vocabulary.

Either a condition's name ("asthma", "migraines", "type 2 diabetes" is read from "diabetes"
on) or an ailing body part ("a bad knee", "my dodgy back", "a slipped disc"): an ailment word
followed by a body part, with the article or possessive that was said ("a bad knee" stays "a
bad knee"; "my" becomes "a"). Anything else is no value: "dealing with the landlord" states
no condition.

    read_condition(tokenize("a bad knee means"), 0)   # (3, "a bad knee")
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.extraction.grammar.lexicon import words
from remem.extraction.grammar.tokens import Token

__all__ = ["AILMENTS", "BODY_PARTS", "CONDITIONS", "read_condition"]

CONDITIONS = words(
    "asthma migraines migraine insomnia arthritis diabetes eczema psoriasis epilepsy sciatica "
    "tinnitus vertigo gout lupus fibromyalgia endometriosis ibs crohn's colitis anaemia anemia "
    "hypertension scoliosis tendonitis rsi copd emphysema hayfever hay-fever long-covid adhd "
    "dyslexia narcolepsy sleep-apnoea apnoea apnea"
)
"""Names of conditions people live with (lower case, one token)."""
AILMENTS = words("bad dodgy weak gammy sore slipped herniated bulging trick dicky busted torn")
"""Words that make a body part an ailment ("a dodgy knee", "a slipped disc")."""
BODY_PARTS = words(
    "knee knees back hip hips shoulder shoulders ankle ankles wrist wrists neck elbow elbows "
    "disc disk spine foot feet leg heart chest hamstring achilles acl"
)


def read_condition(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A condition or an ailing body part at ``i`` (module docstring)."""
    n = len(tokens)
    if i < n and tokens[i].low in CONDITIONS:
        return i + 1, tokens[i].low
    article = "a"
    j = i
    if j < n and tokens[j].low in ("a", "an", "my"):
        j += 1
    elif j < n and tokens[j].low in ("bad", "dodgy", "weak") and j + 1 < n:
        article = ""  # "bad knees", "weak ankles"
    if j + 1 < n and tokens[j].low in AILMENTS and tokens[j + 1].low in BODY_PARTS:
        plural = tokens[j + 1].low.endswith("s") and tokens[j + 1].low not in ("achilles",)
        lead = "" if plural else f"{article} " if article else ""
        return j + 2, f"{lead}{tokens[j].low} {tokens[j + 1].low}"
    return None
