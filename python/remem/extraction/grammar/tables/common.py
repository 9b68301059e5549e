"""Pattern pieces every fact table shares."""

from __future__ import annotations

__all__ = ["PRE"]

PRE = "{who} @adv* @have? @adv* @be? @adv*"
"""Subject, then any of "just", "'ve", "been", "finally", "not" …"""
