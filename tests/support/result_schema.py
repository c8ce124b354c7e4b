"""The core's result schema (python/commscope/records/schema/result.schema.json, the one
copy) and the harness's own validator of it, built once per process: jsonschema.validate
checks the schema against its meta-schema and builds a new validator on every call, which
took 0.1 s of each call for a record of 200 points."""

from __future__ import annotations

from typing import Any

from jsonschema.exceptions import best_match

from commscope.ingest.parse.commscope_json import load_schema, schema_validator

SCHEMA = load_schema()


def validate(doc: Any) -> None:
    """jsonschema.validate(doc, SCHEMA): raises the error it would raise."""
    error = best_match(schema_validator().iter_errors(doc))
    if error is not None:
        raise error
