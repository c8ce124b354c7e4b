"""Launching commscope-bench: launchers, the runner, the core's JSONL stream, finding the core, provenance."""
