"""Moved to :mod:`remem.failures` (below the controller, so write-behind can record failures
without importing the controller); this name is kept for existing imports."""

from remem.failures import BackgroundFailure, FailureLog, Operation

__all__ = ["BackgroundFailure", "FailureLog", "Operation"]
