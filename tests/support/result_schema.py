"""The core's result schema (python/commscope/records/schema/result.schema.json, the one
copy) and one validator of it for every test in the process: jsonschema.validate checks the
schema against its meta-schema and builds a new validator on every call, which took 0.1 s
of each call for a record of 200 points. The schema is checked once, here."""

from __future__ import annotations

from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from commscope.ingest.parse.commscope_json import load_schema

SCHEMA = load_schema()
_VALIDATOR_CLASS = jsonschema.validators.validator_for(SCHEMA)
_VALIDATOR_CLASS.check_schema(SCHEMA)
_VALIDATOR = _VALIDATOR_CLASS(SCHEMA)


def validate(doc: Any) -> None:
    """jsonschema.validate(doc, SCHEMA): raises the error it would raise."""
    error = best_match(_VALIDATOR.iter_errors(doc))
    if error is not None:
        raise error
