"""Scenario files: load TOML, apply ``--set`` overrides, hand the text to Rust.

Python never validates a scenario itself: it only parses the file, edits the document the user
asked to edit, and re-serialises it. The Rust core owns the one schema, so the CLI and the library
cannot disagree. The only errors raised here are about the file (missing, not TOML) and about
override paths that do not exist in the document (``flows.7.count`` when there are two groups).
"""

from __future__ import annotations

import datetime
import math
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeAlias

import tomli_w

from aqmlab._core import ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

#: A scenario as the API accepts it: a path to a ``.toml`` file, TOML text, or a parsed document.
ScenarioLike: TypeAlias = "str | Path | Mapping[str, Any]"
#: Overrides: ``["flows.0.count=64", ...]`` (values as TOML literals) or ``{"flows.0.count": 64}``.
Overrides: TypeAlias = "Iterable[str] | Mapping[str, Any] | None"


def scenario_error(path: str, value: str, allowed: str) -> ScenarioError:
    """An ``aqmlab.ScenarioError`` made on the Python side, shaped like the core's."""
    err = ScenarioError(f"{path or '<scenario>'}: {value} ({allowed})")
    err.path = path
    err.value = value
    err.allowed = allowed
    return err


#: Largest scenario (or sweep) file or text read: far above any real scenario (the largest
#: shipped one is a few KB), far below what could exhaust memory.
MAX_FILE_BYTES = 10 * 1024 * 1024


def read_bounded(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, checked before anything is read:
    a device (``/dev/zero``, ``/dev/urandom``), FIFO, socket or directory is refused without
    reading or blocking (opened non-blocking), and the read itself stops at ``limit + 1`` bytes
    (a file that grows while read is still bounded)."""
    p = Path(path)
    allowed = f"a regular scenario file of at most {limit // (1024 * 1024)} MB"
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise scenario_error(str(p), "no such file", "a readable scenario file") from None
    except OSError as e:
        raise scenario_error(str(p), e.strerror or str(e), "a readable scenario file") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a device, pipe or socket"
            raise scenario_error(str(p), f"is {kind}", allowed)
        if st.st_size > limit:
            raise scenario_error(str(p), f"{st.st_size} bytes", allowed)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise scenario_error(str(p), f"more than {limit} bytes", allowed)
        return b"".join(chunks)
    except OSError as e:
        raise scenario_error(str(p), e.strerror or str(e), "a readable scenario file") from None
    finally:
        os.close(fd)


def load(path: str | Path) -> dict[str, Any]:
    """Parses a scenario file (TOML) into a document."""
    p = Path(path)
    data = read_bounded(p)
    try:
        # utf-8-sig: a byte-order mark (Windows editors write one) is not part of the TOML.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise scenario_error(
            str(p),
            f"byte 0x{data[e.start]:02x} at line {line} is not UTF-8",
            "a UTF-8 text file (TOML files are UTF-8)",
        ) from None
    return loads(text, source=str(p))


#: Deepest nesting of arrays and tables a scenario may have (the schema needs fewer than 10).
MAX_DEPTH = 64


def loads(text: str, *, source: str = "") -> dict[str, Any]:
    """Parses scenario TOML text into a document."""
    if len(text) > MAX_FILE_BYTES:
        raise scenario_error(
            source, f"{len(text)} characters of TOML", f"at most {MAX_FILE_BYTES} characters"
        )
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise scenario_error(source, f"TOML syntax error: {e}", "valid TOML") from None
    except RecursionError:
        raise scenario_error(
            source, "nested too deeply for the parser", f"at most {MAX_DEPTH} levels"
        ) from None
    _check_depth(doc, source)
    return doc


#: TOML integers are 64-bit signed: the core cannot read anything outside this range.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: What a scenario value may be (TOML's types; tuples are arrays).
_SCALARS = (str, bool, int, float, datetime.date, datetime.time)


def _check_depth(doc: Any, source: str) -> None:
    """Rejects what TOML cannot hold, naming the key path: documents nested deeper than
    :data:`MAX_DEPTH` (iteratively: no recursion), integers outside 64 bits, and values that
    are not TOML types (``None``, objects)."""
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise scenario_error(
                path or source, f"nested {depth} levels deep", f"at most {MAX_DEPTH} levels"
            )
        if isinstance(node, Mapping):
            stack.extend((v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in node.items())
        elif isinstance(node, (list, tuple)):
            stack.extend((v, f"{path}.{i}", depth + 1) for i, v in enumerate(node))
        elif isinstance(node, int) and not isinstance(node, bool):
            if not INT_MIN <= node <= INT_MAX:
                raise scenario_error(
                    path or source, str(node), "an integer in TOML's 64-bit range (-2^63..2^63-1)"
                )
        elif not isinstance(node, _SCALARS):
            raise scenario_error(
                path or source,
                f"{repr(node)[:60]} ({type(node).__name__})",
                "a TOML value: string, number, boolean, date, array or table",
            )


def parse_value(text: str) -> Any:
    """Reads an override value as a TOML literal (``64``, ``0.05``, ``true``, ``nan``,
    ``"5ms"``, ``[1, 2]``, ``{ kind = "red" }``), falling back to the raw string (``5ms``)."""
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise scenario_error(
            text[:40], "nested too deeply", f"at most {MAX_DEPTH} levels"
        ) from None
    _check_depth(value, text[:40])
    return value


def parse_override(item: str) -> tuple[str, Any]:
    """Splits ``key.path=value`` into the key path and the parsed value."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise scenario_error(item, "not of the form key.path=value", "--set key.path=value")
    try:
        return key, parse_value(value.strip())
    except ScenarioError as e:  # name the key being set, not the text of its value
        raise scenario_error(key, str(getattr(e, "value", value)), str(e.allowed)) from None


def set_path(doc: dict[str, Any], key: str, value: Any) -> None:
    """Sets ``doc[a][b][0][c] = value`` for ``key = "a.b.0.c"``.

    Missing tables on the way are created; list elements must already exist (an index into a
    list must be in range). Whether the key means anything is for the core to say.
    """
    parts = key.split(".")
    node: Any = doc
    for depth, part in enumerate(parts):
        here = ".".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise scenario_error(here, part, f"a list index in 0..{len(node) - 1}")
            idx = int(part)
            if last:
                node[idx] = value
            else:
                node = node[idx]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                if part not in node:
                    node[part] = {}
                node = node[part]
        else:
            parent = ".".join(parts[:depth])
            raise scenario_error(parent, repr(node), f"a table or list to set {key!r} in")


def apply_overrides(doc: dict[str, Any], overrides: Overrides) -> dict[str, Any]:
    """Applies overrides in order (later ones win) and returns ``doc`` (edited in place)."""
    if overrides is None:
        return doc
    if isinstance(overrides, Mapping):
        items = [(str(k), v) for k, v in overrides.items()]
    elif isinstance(overrides, str):
        items = [parse_override(overrides)]
    elif isinstance(overrides, Iterable) and not isinstance(overrides, (bytes, bytearray)):
        overrides = list(overrides)
        for o in overrides:
            if not isinstance(o, str):
                raise scenario_error(
                    "set", repr(o)[:60], "'key.path=value' strings or a {key.path: value} table"
                )
        items = [parse_override(o) for o in overrides]
    else:
        raise scenario_error(
            "set", repr(overrides)[:60], "a list of 'key.path=value' or a {key.path: value} table"
        )
    for key, value in items:
        set_path(doc, key, value)
    return doc


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and "=" not in s and (s.endswith(".toml") or Path(s).is_file())


def resolve(
    scenario: ScenarioLike, *, overrides: Overrides = None, seed: int | None = None
) -> tuple[dict[str, Any], str]:
    """Loads ``scenario`` (path, TOML text or document), applies the overrides and the seed.

    Returns the document and a short name for it (the file stem, the ``name`` key, or
    ``"scenario"``).
    """
    if isinstance(scenario, Mapping):
        _check_depth(scenario, "<scenario>")
        doc = _deep_copy(scenario)
        stem = ""
    elif not isinstance(scenario, (str, Path)):
        raise scenario_error(
            "scenario", repr(scenario)[:60], "a .toml path, TOML text or a table (dict)"
        )
    elif isinstance(scenario, Path) or _looks_like_path(scenario):
        doc = load(scenario)
        stem = Path(scenario).stem
    else:
        doc = loads(scenario)
        stem = ""
    apply_overrides(doc, overrides)
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise scenario_error("seed", repr(seed)[:60], "an integer in 0..2^64-1")
        doc["seed"] = seed
    name = stem or str(doc.get("name") or "") or "scenario"
    return doc, name


def dumps(doc: Mapping[str, Any]) -> str:
    """Serialises a document back to TOML (NaN and infinities survive: TOML has ``nan``/``inf``).

    The last gate before the core: what TOML cannot hold (``None``, an integer beyond 64 bits)
    is a :class:`ScenarioError` naming its key path, never a ``TypeError``."""
    _check_depth(doc, "<scenario>")
    return tomli_w.dumps(doc)


def measured_qdisc(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """The qdisc table of the link a scenario's scalar summary describes: ``bottleneck.qdisc``
    for a dumbbell, else the ``[[topology.links]]`` entry with ``measure = true`` (default: the
    first). A missing table means DropTail."""
    droptail = {"kind": "droptail"}
    if "bottleneck" in doc or "topology" not in doc:
        q = doc.get("bottleneck", {}).get("qdisc", droptail)
        return q if isinstance(q, Mapping) else droptail
    links = doc.get("topology", {}).get("links") or [{}]
    if not isinstance(links, list):
        return droptail
    link = next((x for x in links if isinstance(x, Mapping) and x.get("measure")), links[0])
    q = link.get("qdisc", droptail) if isinstance(link, Mapping) else droptail
    return q if isinstance(q, Mapping) else droptail


def qdisc_kinds(doc: Mapping[str, Any]) -> set[str]:
    """Every qdisc kind a scenario names (bottleneck, or each topology link and its reverse)."""
    tables = [measured_qdisc(doc)]
    links = doc.get("topology", {}).get("links", [])
    for link in links if isinstance(links, list) else []:
        if isinstance(link, Mapping):
            tables.append(link.get("qdisc", {}))
            reverse = link.get("reverse", {})
            tables.append(reverse.get("qdisc", {}) if isinstance(reverse, Mapping) else {})
    return {str(t.get("kind", "droptail")) for t in tables if isinstance(t, Mapping)}


def _deep_copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _deep_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_deep_copy(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return math.nan
    return value
