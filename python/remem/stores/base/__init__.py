"""Store base classes: each protocol's contract front half (checks, empty cases), written once."""
