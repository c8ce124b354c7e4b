"""Site defaults for `commscope submit`: a small YAML file per user.

    # ~/.config/commscope/config.yaml (or $COMMSCOPE_CONFIG)
    partition: cpu
    account: hpc-acceptance
    launcher: srun
    modules: [openmpi/4.1.5]
    env: {UCX_NET_DEVICES: mlx5_0:1}
    sbatch: ["--exclusive", "--mem=0"]       # extra #SBATCH lines
    setup: ["source /opt/commscope/venv/bin/activate"]   # shell lines before the run
    commscope: /opt/commscope/venv/bin/commscope          # the command on compute nodes

A flag of `commscope submit` wins over the file, the file over the built-in default.
Problems are reported as FILE:LINE: KEY: problem, like suite files.
"""

from __future__ import annotations

import functools
import os
import shlex
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Literal

import platformdirs

from commscope.errors import UsageError
from commscope.records import yamlfile

ENV_VAR = "COMMSCOPE_CONFIG"
FILE_NAME = "config.yaml"


@dataclass
class SiteConfig:
    """The keys of the file; None (or empty) means: not set, use the built-in default."""

    partition: str | None = None
    account: str | None = None
    qos: str | None = None
    time: str | None = None
    constraint: str | None = None
    exclusive: bool | None = None
    launcher: str | None = None  # srun | mpirun | mpiexec | auto
    transport: str | None = None  # auto | shm | net
    modules: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    sbatch: list[str] = field(default_factory=list)  # extra #SBATCH lines, without "#SBATCH"
    setup: list[str] = field(default_factory=list)  # shell lines run before commscope
    commscope: str | None = None  # how compute nodes start commscope (shell words)
    jobs_dir: str | None = None  # where job folders go
    start_timeout: float | None = None  # submit --wait: seconds a job may stay queued

    def items(self) -> list[tuple[str, object]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self)]


KEYS = tuple(f.name for f in fields(SiteConfig))
LIST_KEYS = ("modules", "sbatch", "setup")


def config_path(environ=os.environ) -> Path:
    """$COMMSCOPE_CONFIG, else config.yaml in the user's config folder."""
    explicit = environ.get(ENV_VAR)
    if explicit:
        return Path(explicit).expanduser()
    return platformdirs.user_config_path("commscope") / FILE_NAME


def _command(value: str | None) -> str | None:
    """`commscope:` is split into words as a shell would, on every submit."""
    if value is not None:
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise ValueError(f"not shell words: {exc}") from None
        if not words:
            raise ValueError("no command in it")
    return value


def _folder(value: str | None) -> str | None:
    """`jobs_dir:` may start with ~ or ~USER, which must name a user of this machine."""
    if value is not None:
        try:
            Path(value).expanduser()
        except RuntimeError:
            user = value[1:].split("/", 1)[0]
            raise ValueError(f"no user {user} on this machine" if user else "no home folder to put for ~") from None
    return value


@functools.cache
def _model():

    from pydantic import AfterValidator, ConfigDict, Field, create_model

    from commscope.cluster.script import LAUNCHERS
    from commscope.records.suite import Transport

    kinds = {
        "exclusive": (bool | None, None),
        "launcher": (Literal[LAUNCHERS] | None, None),
        "transport": (Transport | None, None),
        "start_timeout": (float | None, Field(default=None, ge=0, allow_inf_nan=False)),
        "commscope": (Annotated[str | None, AfterValidator(_command)], None),
        "jobs_dir": (Annotated[str | None, AfterValidator(_folder)], None),
        "modules": (list[str], []),
        "sbatch": (list[str], []),
        "setup": (list[str], []),
        "env": (dict[str, str], {}),
    }
    return create_model(
        "SiteConfig",
        __config__=ConfigDict(extra="forbid", strict=False),
        **{key: kinds.get(key, (str | None, None)) for key in KEYS},
    )


def _mistake(error: dict) -> str:
    """KEY 'VALUE': what is wrong, from one of pydantic's errors."""
    key = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        return f"{key}: unknown key; known keys: {', '.join(KEYS)}"
    return f"{key} {error['input']!r}: {error['msg'].removeprefix('Value error, ')}"


def load(path: Path | None = None) -> SiteConfig:
    """The site configuration; an empty one when the file does not exist."""
    from pydantic import ValidationError

    path = path or config_path()
    if not path.exists():
        return SiteConfig()
    document = yamlfile.load(path, "configuration")
    data, root = document.data, document.root
    if data is None:
        return SiteConfig()
    if not isinstance(data, dict):
        raise UsageError(f"{path}:1: the configuration is a mapping of keys ({', '.join(KEYS)})")
    try:
        checked = _model().model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        raise UsageError(f"{path}:{yamlfile.line_of(root, error['loc'])}: {_mistake(error)}") from None
    return SiteConfig(**checked.model_dump())


def save(config: SiteConfig, path: Path | None = None) -> Path:
    """Write the keys that are set (comments in the file are not kept)."""
    import yaml

    path = path or config_path()
    data = {key: value for key, value in config.items() if value not in (None, [], {})}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def set_key(config: SiteConfig, key: str, values: list[str]) -> SiteConfig:
    """`config set KEY VALUE...`: a list key takes every value, env takes NAME=VALUE pairs,
    any other key one value."""
    from pydantic import ValidationError

    if key not in KEYS:
        raise UsageError(f"unknown configuration key {key!r}; known keys: {', '.join(KEYS)}")
    if key in LIST_KEYS:
        value: object = list(values)
    elif key == "env":
        pairs = [value.partition("=") for value in values]
        bad = [value for value, (name, sep, _) in zip(values, pairs) if not sep or not name]
        if bad:
            raise UsageError(f"env: {bad[0]!r} is not NAME=VALUE")
        value = {name: text for name, _, text in pairs}
    elif len(values) != 1:
        raise UsageError(f"{key} takes one value, not {len(values)}")
    else:
        value = values[0]
    data = {**dict(config.items()), key: value}
    try:
        checked = _model().model_validate(data)
    except ValidationError as exc:
        raise UsageError(_mistake(exc.errors()[0])) from None
    return SiteConfig(**checked.model_dump())
