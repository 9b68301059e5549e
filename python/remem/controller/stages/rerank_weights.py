"""The learned re-ranker's shipped weights (:mod:`remem.controller.stages.rerank`).

Written by ``python -m remem.eval.locomo.rerank_fit --data DIR --work DIR --write`` (pairwise
logistic regression on the LoCoMo dev split; the module's docstring gives the figures). Empty
until fitted: the stage then changes nothing.
"""

from __future__ import annotations

WEIGHTS: dict[str, float] = {}
