"""Names in a message typed without capitals: which lower-case words are English, and which
are likely names whose capital the tokeniser gives back.

Many people chat in lower case ("my boyfriend callum says i should write everything down",
"nico and i broke up"). The grammar's name slots read capitalised words, so such a message
used to give no fact at all. When a message has no capital letter anywhere, a word is taken as
a name (its ``cap`` set, its text title-cased) when it is *not* English: not in SCOWL's
lower-case word list (``data/english.txt.gz``, built by ``scripts/build_wordlist.py``), not a
word of the grammar's own lexicon (months, weekdays, nationalities, diets, breeds…), not chat
shorthand ("lol", "ngl", "bf"), at least three letters long and without a letter typed three
times over ("sooo"). A name that is also a word ("rose", "max", "will") stays lower case: the
grammar misses it rather than inventing a name. A message with any capital is left as typed —
its writer uses case, so a lower-case word there is not a name.
"""

from __future__ import annotations

import gzip
import re
from functools import cache
from importlib import resources

from remem.extraction.grammar.lexicon import CLASSES, NOT_PLACES, STOP, words

__all__ = ["CHAT", "english", "likely_name"]

CHAT = words(
    "lol lols lolol lmao lmfao rofl omg omfg wtf ngl tbh tbf idk idc imo imho irl btw fyi "
    "afaik iirc smh fml jk ikr bff bestie hubby wifey bae fam bro bruh sis bf gf ok okay kk "
    "yeah yea yeh yep yup nope nah naw meh ugh argh hmm hmmm huh haha hahaha hehe heh xd xx "
    "xox xoxo thx pls plz tho thru cuz coz cos bc yall gonna wanna gotta dunno lemme gimme "
    "kinda sorta outta innit rn atm asap tmrw tmr tomoz tonite nite brb gtg ttyl hbu wbu wyd "
    "hmu dms pic pics selfie selfies vid vids insta tiktok whatsapp netflix youtube spotify "
    "uni telly footy brekkie arvo sesh cuppa quid fiver tenner lads bloke gig gigs anyways "
    "tysm ily ilysm jsyk ftr nvm ofc obvs prob probs def defo legit lowkey highkey af "
    "christmas xmas easter halloween diwali eid hanukkah ramadan thanksgiving valentines "
    "mon tue tues wed weds thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept "
    "oct nov dec appt appts dept govt approx esp info admin mins hrs yrs wks secs tmw bday "
    "bdays"
)
"""Chat shorthand, holidays and abbreviations written in lower case that SCOWL's list lacks."""

_REPEAT = re.compile(r"(.)\1\1")


@cache
def english() -> frozenset[str]:
    """Every lower-case word the casing treats as English (loaded on first use)."""
    data = resources.files("remem.extraction.grammar") / "data" / "english.txt.gz"
    text = gzip.decompress(data.read_bytes()).decode("utf-8")
    listed = {w for w in text.split("\n") if w and not w.startswith("#")}
    lexicon = set().union(*CLASSES.values(), STOP, NOT_PLACES)
    return frozenset(listed | lexicon | CHAT)


def likely_name(low: str) -> bool:
    """True when the case-folded word ``low``, typed in a message without capitals, is
    probably a name (see the module docstring)."""
    return len(low) >= 3 and low.isalpha() and low not in english() and _REPEAT.search(low) is None
