"""YAML files people write by hand (suites, sweep rules, the site configuration), read safely.

PyYAML's safe loader still lets a file

- expand a few aliases into billions of values (twelve lines stand for 9**11 strings),
  which every later walk over the data (duplicate keys, pydantic) visits one by one;
- nest lists thousands deep, which its recursive composer ends with a RecursionError;
- hold a key twice in one mapping, the last one silently winning.

`load` refuses each of them, and NUL bytes, as FILE:LINE: message, before anything reads
the data. Problems are (file, line, key, message) so a reader can add its own (pydantic's)
in the same form.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from commscope.errors import UsageError
from commscope.records.inputs import read_text

if TYPE_CHECKING:
    import yaml

#: Deepest nesting of lists and mappings: a suite file needs four levels.
MAX_DEPTH = 32
#: Most values a file may stand for once its aliases are expanded: a suite of a thousand
#: entries holds some 10,000.
MAX_VALUES = 100_000

Problem = tuple[str, int, str, str]  # file, line, key path ("" for the whole file), message


class YamlFileError(UsageError):
    """A YAML file that cannot be used; `problems` holds (file, line, key, message)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__(
            "\n".join(
                f"{path}:{line}: {key}: {message}" if key else f"{path}:{line}: {message}"
                for path, line, key, message in problems
            )
        )


@dataclass
class YamlDocument:
    data: object  # None for an empty file
    root: yaml.Node | None  # where line_of() finds the line of a key


def load(path: Path, what: str) -> YamlDocument:
    """The YAML document in the file `path`, a `what` ("suite file"), read up to the
    input limit (records/inputs.py)."""
    import yaml

    text = read_text(path, what)
    where = str(path)
    try:
        aliases = _check_events(text, where)
        loader = yaml.SafeLoader(text)
        try:
            root = loader.get_single_node()
            if root is not None:
                _check_nodes(root, where, aliases)
            data = loader.construct_document(root) if root is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlFileError([(where, mark.line + 1 if mark else 1, "", f"invalid YAML: {exc.problem}")]) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        character = "a NUL byte" if exc.character in (0, "\0") else f"the control character {exc.character!r}"
        raise YamlFileError([(where, line, "", f"invalid YAML: {character}, which YAML does not allow")]) from None
    except yaml.YAMLError as exc:
        raise YamlFileError([(where, 1, "", f"invalid YAML: {exc}")]) from None
    return YamlDocument(data, root)


def _check_events(text: str, where: str) -> list[int]:
    """Refuse nesting deeper than MAX_DEPTH from the parser's events (which, unlike the
    composer, are not recursive); the lines of the file's aliases."""
    import yaml

    depth, aliases = 0, []
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                message = f"invalid YAML: lists or mappings nested too deeply (more than {MAX_DEPTH} levels)"
                raise YamlFileError([(where, event.start_mark.line + 1, "", message)])
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases.append(event.start_mark.line + 1)
    return aliases


def _check_nodes(root: yaml.Node, where: str, aliases: list[int]) -> None:
    """Refuse a document whose aliases stand for more than MAX_VALUES values, and the first
    key a mapping repeats. A walk with its own stack: a node reached again through an alias
    counts again, as it will for whoever reads the data."""
    import yaml

    stack: list[tuple[yaml.Node, tuple]] = [(root, ())]
    seen: set[int] = set()
    values = 0
    while stack:
        node, loc = stack.pop()
        values += 1
        if values > MAX_VALUES:
            line = aliases[0] if aliases else node.start_mark.line + 1
            message = f"more than {MAX_VALUES:,} values" + (
                f" once its {len(aliases)} aliases are expanded" if aliases else ""
            )
            raise YamlFileError([(where, line, "", message)])
        first_visit = id(node) not in seen
        seen.add(id(node))
        children: list[tuple[yaml.Node, tuple]] = []
        if isinstance(node, yaml.MappingNode):
            keys: set[object] = set()
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if first_visit and key in keys:
                    duplicate = "duplicate key (YAML would silently keep the last one)"
                    raise YamlFileError([(where, key_node.start_mark.line + 1, key_path((*loc, key)), duplicate)])
                keys.add(key)
                children.append((value_node, (*loc, key)))
        elif isinstance(node, yaml.SequenceNode):
            children = [(child, (*loc, index)) for index, child in enumerate(node.value)]
        stack.extend(reversed(children))  # the file's order: the first duplicate is the one named


def key_path(loc: tuple) -> str:
    """benchmarks[0].ranks: how problems name a key."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def line_of(root: yaml.Node | None, loc: tuple) -> int:
    """1-based line of the YAML node at `loc`; the deepest existing node if `loc` leads nowhere
    (a missing key is reported at the mapping that lacks it)."""
    import yaml

    if root is None:
        return 1
    node = root
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    # The key's own line: for an unknown key, and for a value on the next line.
                    child = key_node if part == loc[-1] else value_node
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
    return node.start_mark.line + 1
