"""Compiled page templates kept beside their sources, as Python keeps compiled modules.

Compiling the three templates of a run's page takes ~15 ms of CPU, paid by every ``aqmlab run``
process. :class:`CompiledTemplates` is a Jinja2 bytecode cache in ``templates/__pycache__/``:
a template's code is read from there when the file was compiled from the same source, by the
same environment settings, Jinja2 and Python version (Jinja2 checks the checksum and its own
magic, which names the Python version, and compiles from source on any mismatch), and written
there after a compile unless ``sys.dont_write_bytecode`` (``PYTHONDONTWRITEBYTECODE``) is set,
as for ``.pyc`` files. ``make setup`` writes them once (:func:`compile_all`), as it compiles the
package's modules. A damaged, foreign or unwritable file only costs the compile it would save.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sys
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket

#: Suffix of a compiled template: ``run.html.j2`` -> ``run.html.j2.cache``.
SUFFIX = ".cache"


def settings_key(env: jinja2.Environment) -> str:
    """What, besides a template's source, decides its compiled code: the syntax and whitespace
    settings, autoescaping, the extensions and Jinja2's version."""
    return repr(
        (
            getattr(jinja2, "__version__", ""),
            env.block_start_string,
            env.block_end_string,
            env.variable_start_string,
            env.variable_end_string,
            env.comment_start_string,
            env.comment_end_string,
            env.line_statement_prefix,
            env.line_comment_prefix,
            env.trim_blocks,
            env.lstrip_blocks,
            env.newline_sequence,
            env.keep_trailing_newline,
            env.autoescape,
            env.optimized,
            sorted(env.extensions),
        )
    )


class CompiledTemplates(jinja2.BytecodeCache):
    """Jinja2 bytecode cache in ``directory``, one file per template name."""

    def __init__(self, directory: Path, settings: str, *, write: bool | None = None) -> None:
        self.directory = directory
        self.settings = settings
        #: None: write unless sys.dont_write_bytecode (read at each write, as Python does).
        self.write = write

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        # The name alone: the default key hashes the template's absolute path, which differs
        # between the tree that compiled it and wherever the package is installed.
        return name

    def get_source_checksum(self, source: str) -> str:
        text = f"{self.settings}\0{source}"
        return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()

    def _path(self, bucket: Bucket) -> Path:
        return self.directory / f"{bucket.key}{SUFFIX}"

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            data = self._path(bucket).read_bytes()
        except OSError:
            return
        try:
            bucket.bytecode_from_string(data)
        except Exception:  # damaged beyond what Bucket checks (a truncated pickle): recompile
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        if not (self.write if self.write is not None else not sys.dont_write_bytecode):
            return
        # Through a temporary file and a rename: processes compiling side by side (a sweep's
        # workers) never read a half-written file.
        with contextlib.suppress(OSError):
            self.directory.mkdir(exist_ok=True)
            tmp = self.directory / f".tmp-{os.getpid()}-{secrets.token_hex(4)}"
            # The umask's permissions, as a .pyc file gets (mkstemp would make it private).
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(bucket.bytecode_to_string())
                tmp.replace(self._path(bucket))
            except BaseException:
                with contextlib.suppress(OSError):
                    tmp.unlink()
                raise


def compile_all(env: jinja2.Environment) -> list[str]:
    """Compiles every template of ``env`` into its cache (written even under
    ``PYTHONDONTWRITEBYTECODE``); returns the names."""
    cache = env.bytecode_cache
    if not isinstance(cache, CompiledTemplates):
        raise TypeError("the environment has no CompiledTemplates cache")
    loader = env.loader
    if loader is None:
        raise TypeError("the environment has no loader")
    names = env.list_templates(extensions=["j2"])
    old = cache.write
    cache.write = True
    try:
        for name in names:
            source, filename, _ = loader.get_source(env, name)
            bucket = cache.get_bucket(env, name, filename, source)
            bucket.code = env.compile(source, name, filename)
            cache.set_bucket(bucket)
    finally:
        cache.write = old
    return names
