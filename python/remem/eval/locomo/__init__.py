"""LoCoMo-format retrieval benchmark: does recall find the turns that answer a question?

The user supplies the data (remem ships none): the released ``locomo10.json`` or a directory of
per-conversation JSON files (:mod:`~remem.eval.locomo.loader`). Each conversation goes into a
fresh remem memory (:mod:`~remem.eval.locomo.ingest`), each question is recalled and its
results mapped back to dia_ids (:mod:`~remem.eval.locomo.retrieve`), and the rankings are scored
against the evidence (:mod:`~remem.eval.locomo.metrics`): evidence recall@k, all-evidence@k,
MRR and nDCG@10, overall and per category, with tokens and latency
(:mod:`~remem.eval.locomo.report`).

    run = await run_locomo(LocomoConfig(data=Path("locomo10.json"), out=Path("runs/locomo")))
    write_report(run)
    print(format_table(run))

From the shell: ``remem bench locomo --data DIR``.
"""

from __future__ import annotations

from remem.eval.locomo.format import (
    CATEGORY_NAMES,
    Conversation,
    EvidenceIssues,
    Question,
    Session,
    Turn,
    parse_evidence,
    parse_locomo_datetime,
)
from remem.eval.locomo.ingest import IndexMode, IngestedConversation, ingest_conversation
from remem.eval.locomo.loader import load_locomo
from remem.eval.locomo.metrics import (
    evidence_metrics,
    evidence_metrics_reference,
    per_question_metrics,
)
from remem.eval.locomo.rankings import read_rankings, write_rankings
from remem.eval.locomo.report import format_table, write_report
from remem.eval.locomo.retrieve import QuestionResult, map_results, retrieve_conversation
from remem.eval.locomo.run import DEFAULT_KS, LocomoConfig, LocomoRun, run_locomo

__all__ = [
    "CATEGORY_NAMES",
    "DEFAULT_KS",
    "Conversation",
    "EvidenceIssues",
    "IndexMode",
    "IngestedConversation",
    "LocomoConfig",
    "LocomoRun",
    "Question",
    "QuestionResult",
    "Session",
    "Turn",
    "evidence_metrics",
    "evidence_metrics_reference",
    "format_table",
    "ingest_conversation",
    "load_locomo",
    "map_results",
    "parse_evidence",
    "parse_locomo_datetime",
    "per_question_metrics",
    "read_rankings",
    "retrieve_conversation",
    "run_locomo",
    "write_rankings",
    "write_report",
]
