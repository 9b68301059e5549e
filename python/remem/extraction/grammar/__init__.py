"""The extraction grammar behind :class:`~remem.extraction.RuleExtractor`.

- :mod:`.tokens` — the clause tokeniser (Unicode names, contractions, e-mails, phones);
- :mod:`.pattern` — token patterns with named slots (``{who} @adv* moved|relocated to
  {v:place}``), compiled once, indexed by first and rarest required word;
- :mod:`.slots` — what each slot type reads: the registry and the dates, kinship, animals;
  :mod:`.names` (names, places, organisations, schools), :mod:`.phrases` (phrases, jobs,
  diets, habits, lists) and :mod:`.subject` (whom a clause is about);
- :mod:`.lexicon` — the word classes (``@move``, ``@animal`` …);
- :mod:`.rule` and :mod:`.tables` — one declarative table per kind of fact (places, work,
  school, people and pets, habits and details), rows saying SET
  or END and what a negation does;
- :mod:`.engine` — the guards (question, hypothetical) and the rule index;
- :mod:`.statement` — a match made a statement (subject and negation guards, the value);
- :mod:`.corrections` — CORRECT: misstatements put right ("sorry, Thursday, not Wednesday").

To teach it a phrasing, add a row to the kind's table (or a word to a class); the corpus test
(``tests/extraction/test_corpus.py``) says whether precision held.
"""
