"""Shared fixtures for the test suite."""

from __future__ import annotations

pytest_plugins = ["tests.postgres"]
