"""Evaluation: does an agent actually remember? A number, not a claim.

- :mod:`remem.eval.persona` and friends: the persona time-lapse harness (``remem eval``) —
  seeded personas with a ground-truth plan, scheduled updates and contradictions, quizzes asked
  from the plan (never from the transcript), LLM-free and judged scoring, bootstrap confidence
  intervals, variants compared with paired deltas.
- :mod:`remem.eval.locomo`: a retrieval benchmark over conversations in the LoCoMo format
  (``remem bench locomo --data DIR``).
"""
