"""Benchmarks: native vs reference vs the obvious baseline, one file per hot path."""
