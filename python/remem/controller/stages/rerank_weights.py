"""The learned re-ranker's shipped weights (:mod:`remem.controller.stages.rerank`).

Written by ``OPENBLAS_NUM_THREADS=1 python -m remem.eval.locomo.rerank_fit --data DIR --work
DIR --write`` (pairwise logistic regression on the LoCoMo dev split, averaged over its λ
grid; see that module). Figures of that run (R@10 / MRR / All@10 / multi-hop R@10,
categories 1–4):

                                         R@10    MRR  All@10 multi-hop
    before (the block as recall ranks it)   80.9   60.7    74.9      50.0
    LOCO, with the question-type terms   80.2   59.4    74.2      50.9
    LOCO, lambda chosen by nested LOCO   81.9   61.2    76.5      48.6
    leave one conversation out           81.6   62.5    76.2      50.8
    in-sample (rounded)                  81.4   63.2    75.7      52.5
      conversation 26: before            79.2   55.1    72.0      46.1
      conversation 26: in-sample         79.6   58.2    73.3      51.0
      conversation 30: before            81.0   64.7    75.3      42.3
      conversation 30: in-sample         82.3   65.4    77.8      42.3
      conversation 41: before            82.6   64.2    77.6      56.7
      conversation 41: in-sample         82.8   67.0    77.0      57.6
"""

from __future__ import annotations

WEIGHTS: dict[str, float] = {
    "final_log": 0.6336,
    "final_rr": 0.0722,
    "fulltext_rr": 0.3914,
    "fulltext_rel": 1.5116,
    "vector_rr": 0.1244,
    "vector_cos": 0.3843,
    "vector_rel": 0.6373,
    "both": 0.0106,
    "neighbours": -0.5686,
    "speaker": 0.8193,
    "dates": 1.5326,
    "time": 1.1142,
    "session_rr": 1.3925,
    "session_hits": 0.0319,
    "length": 3.0766,
    "turn": 0.1622,
}
