"""Importing the same file twice stores it once: files are known by the SHA-256 of their
bytes (the `sources` table keeps each file once, by that hash), whatever their name or place."""

from __future__ import annotations

from commscope.store.db import Store


class SeenSources:
    """The files already stored, in the database or earlier in this import."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.this_import: dict[str, str] = {}  # hash -> the file of this import that had it

    def earlier(self, sha256: str) -> str | None:
        """What already holds these bytes ("runs 3, 4" or "FILE, earlier in this import"), None if new."""
        if sha256 in self.this_import:
            return f"{self.this_import[sha256]}, earlier in this import"
        stored = self.store.runs_from_source(sha256)
        if stored:
            return f"run{'s' if len(stored) > 1 else ''} {', '.join(map(str, stored))}"
        return None

    def add(self, sha256: str, name: str) -> None:
        self.this_import.setdefault(sha256, name)
