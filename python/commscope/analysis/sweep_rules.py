"""Sweep rule files: the thresholds of the outlier flags, per metric, in YAML.

    # rules.yaml
    bw:
      mad_k: 3        # suspect when more than 3 scaled MADs below the median ...
      margin: 0.9     # ... and below 90 % of it
    bibw: {mad_k: 3, margin: 0.9}
    latency:
      mad_k: 3
      margin: 2.0     # latency: above 2x the smallest of all pairs
    retest_per_node: 3
    max_retests: 64
    locate:
      confirm: 3      # sweep locate: a bad node is slow with 3 different cleared partners
      max_rounds: 10  # ... and stops after 10 rounds at the latest
      detect: 0.2     # every host and uplink cleared of a slowdown of 20 % or more
      alpha: 0.001    # at most 0.1 % of sweeps of a healthy fabric name anything
      beta: 0.05      # a part 20 % slower is named (or left undecided) with 95 % probability

Every key is optional; what is left out keeps its default (analysis.sweep.DEFAULT_RULES).
Mistakes are reported as FILE:LINE: KEY: message, like suite files.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from commscope.analysis.sweep import DEFAULT_RULES, LocateRules, MetricRule, Policy
from commscope.errors import UsageError
from commscope.records import yamlfile


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    mad_k: float = Field(default=None, gt=0, description="scaled MADs from the median")
    margin: float = Field(
        default=None, gt=0, description="bandwidth: fraction of the median; latency: factor of the minimum"
    )


class _Locate(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    confirm: int = Field(default=LocateRules.confirm, ge=2, description="cleared partners a bad node is slow with")
    max_rounds: int = Field(default=LocateRules.max_rounds, ge=1, description="rounds of sweep locate at most")
    detect: float = Field(default=LocateRules.detect, gt=0, lt=1, description="slowdown every part is cleared of")
    alpha: float = Field(default=LocateRules.alpha, gt=0, lt=1, description="chance of naming a healthy part")
    beta: float = Field(default=LocateRules.beta, gt=0, lt=1, description="chance of clearing a slow part")


class _RuleFile(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    latency: _Rule | None = None
    bw: _Rule | None = None
    bibw: _Rule | None = None
    retest_per_node: int = Field(default=3, ge=0)
    max_retests: int = Field(default=64, ge=0)
    locate: _Locate = Field(default_factory=_Locate)


class RulesError(UsageError):
    pass


def load_rules(path: Path) -> Policy:
    document = yamlfile.load(path, "rules file")
    data, root = document.data if document.data is not None else {}, document.root
    if not isinstance(data, dict):
        raise RulesError(
            f"{path}:{yamlfile.line_of(root, ())}: a rules file is a mapping of latency, bw, bibw, "
            "retest_per_node, max_retests, locate"
        )
    try:
        checked = _RuleFile.model_validate(data)
    except ValidationError as exc:
        raise RulesError(
            "\n".join(f"{path}:{yamlfile.line_of(root, loc)}: {text}" for loc, text in _problems(exc))
        ) from exc
    return _policy(checked)


def rules_mapping(policy: Policy) -> dict:
    """A policy in the rules file's shape: what a sweep run keeps in its provenance, so it
    can be judged again later exactly as at the time (policy_of_mapping reads it back)."""
    return {
        **{metric: {"mad_k": rule.mad_k, "margin": rule.margin} for metric, rule in policy.rules.items()},
        "retest_per_node": policy.retest_per_node,
        "max_retests": policy.max_retests,
        "locate": dataclasses.asdict(policy.locate),
    }


def policy_of_mapping(data: object, where: str) -> Policy:
    """The policy of a mapping in the rules file's shape (a stored sweep's provenance); a
    mistake is reported as `where`: KEY: message."""
    if not isinstance(data, dict):
        raise RulesError(
            f"{where}: sweep rules are a mapping of latency, bw, bibw, retest_per_node, max_retests, locate"
        )
    try:
        checked = _RuleFile.model_validate(data)
    except ValidationError as exc:
        raise RulesError("\n".join(f"{where}: {text}" for _, text in _problems(exc))) from exc
    return _policy(checked)


def _problems(exc: ValidationError) -> list[tuple[tuple, str]]:
    """(location, "KEY: message") of each mistake pydantic found."""
    problems = []
    for error in exc.errors():
        loc = error["loc"]
        key = ".".join(str(part) for part in loc)
        message = (
            "unknown key; allowed keys: " + ", ".join(_model_at(loc).model_fields)
            if error["type"] == "extra_forbidden"
            else error["msg"]
        )
        problems.append((loc, f"{key}: {message}"))
    return problems


def _model_at(loc: tuple) -> type[BaseModel]:
    """The model of the mapping a mistake's location is in."""
    if len(loc) == 1:
        return _RuleFile
    return _Locate if loc[0] == "locate" else _Rule


def _policy(checked: _RuleFile) -> Policy:
    rules = {}
    for metric, default in DEFAULT_RULES.items():
        given = getattr(checked, metric)
        rules[metric] = MetricRule(
            mad_k=given.mad_k if given and given.mad_k is not None else default.mad_k,
            margin=given.margin if given and given.margin is not None else default.margin,
        )
    locate = LocateRules(**checked.locate.model_dump())
    return Policy(rules=rules, retest_per_node=checked.retest_per_node, max_retests=checked.max_retests, locate=locate)
