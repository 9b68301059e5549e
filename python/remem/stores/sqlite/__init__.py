"""Embedded SQLite backends: one database file per store, one worker thread per store."""
