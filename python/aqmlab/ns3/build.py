"""The ns-3 program of the cross-check: found, compiled once, cached.

The program (``dumbbell.cc``, shipped in this package) is compiled against ns-3.44 from the
``ns3`` wheel on PyPI (headers and shared libraries; nothing of ns-3 itself is compiled) with
the system's C++ compiler, into the cache directory, under a name that carries a hash of the
source and the compiler command (compiler, flags, the wheel's location): each version gets its
own binary and none overwrites another (the build writes a temporary file and renames it).

Where the wheel is looked for, first found wins:

1. ``$AQMLAB_NS3``: the ``ns3`` package directory of an installed wheel (holds ``include/`` and
   ``lib64/``);
2. the running Python's ``ns3`` package (``pip install 'aqmlab[ns3]'``, Python 3.11 only: the
   wheel is built for CPython 3.11);
3. ``<cache>/wheel/ns3``, where ``make ns3`` (``python python/aqmlab/ns3/build.py``) installs
   the wheel for any Python (its files only: it is not imported) and builds the program.

``<cache>`` is ``$AQMLAB_NS3_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/aqmlab/ns3``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

VERSION = "3.44"
WHEEL = "ns3==3.44.post0"
SOURCE = Path(__file__).with_name("dumbbell.cc")
LIBS = [
    "core",
    "network",
    "internet",
    "traffic-control",
    "point-to-point",
    "applications",
    "stats",
    "bridge",
]

INSTALL_HINT = (
    f"install ns-3 {VERSION}'s wheel with `make ns3` (or `pip install {WHEEL}` on Python 3.11, "
    "or point AQMLAB_NS3 at an installed ns3 package directory)"
)


class Ns3Missing(RuntimeError):
    """The ``ns3`` wheel or a C++ compiler is missing, or the program does not compile."""


def cache_dir() -> Path:
    explicit = os.environ.get("AQMLAB_NS3_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aqmlab" / "ns3"


def _usable(d: Path) -> bool:
    return (d / "include" / "ns3" / "core-module.h").is_file() and (d / "lib64").is_dir()


def ns3_dir() -> Path:
    """The ``ns3`` package directory of the wheel (see the module's docstring)."""
    explicit = os.environ.get("AQMLAB_NS3")
    if explicit:
        if _usable(Path(explicit)):
            return Path(explicit)
        raise Ns3Missing(
            f"AQMLAB_NS3={explicit} holds no ns-3 headers and libraries; {INSTALL_HINT}"
        )
    spec = importlib.util.find_spec("ns3")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if _usable(Path(loc)):
            return Path(loc)
    cached = cache_dir() / "wheel" / "ns3"
    if _usable(cached):
        return cached
    raise Ns3Missing(f"ns-3 {VERSION} not found: {INSTALL_HINT}")


def compiler() -> str:
    """The C++ compiler (``$CXX``, else ``c++`` or ``g++`` on PATH)."""
    for name in (os.environ.get("CXX"), "c++", "g++"):
        if name and shutil.which(name):
            return str(shutil.which(name))
    raise Ns3Missing(
        "no C++ compiler found to build the ns-3 program: install g++ (apt-get install g++) "
        "or set CXX"
    )


def program() -> Path:
    """The compiled program, built on first use (about a minute of one core)."""
    ns3 = ns3_dir()
    cxx = compiler()
    lib = ns3 / "lib64"
    flags = ["-std=c++20", "-O2", "-DNS3_BUILD_PROFILE_RELEASE", f"-I{ns3 / 'include'}"]
    links = [f"-L{lib}", "-Wl,--no-as-needed", *[f"-lns{VERSION}-{name}" for name in LIBS]]
    links += ["-Wl,--as-needed", f"-Wl,-rpath,{lib}"]
    what = SOURCE.read_bytes() + " ".join([cxx, *flags, *links]).encode()
    out = cache_dir() / "bin" / f"aqmlab-ns3-dumbbell-{hashlib.sha256(what).hexdigest()[:12]}"
    if out.is_file() and os.access(out, os.X_OK):
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    cmd = [cxx, *flags, str(SOURCE), "-o", str(tmp), *links]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        raise Ns3Missing(f"the ns-3 program did not compile ({cxx}): {tail}")
    tmp.replace(out)
    return out


def available() -> bool:
    """Whether the program is built or can be (wheel and compiler present)."""
    try:
        ns3_dir()
        compiler()
    except Ns3Missing:
        return False
    return True


def install_wheel() -> Path:
    """Installs the ``ns3`` wheel's files into ``<cache>/wheel`` (for any Python: the CPython
    3.11 build is unpacked, never imported). Returns its ``ns3`` package directory."""
    target = cache_dir() / "wheel"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade"]
    cmd += ["--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp"]
    cmd += ["--platform", "manylinux_2_28_x86_64", "--target", str(target), WHEEL]
    subprocess.run(cmd, check=True)
    return target / "ns3"


if __name__ == "__main__":  # `make ns3`: this file imports nothing of aqmlab
    if not _usable(cache_dir() / "wheel" / "ns3"):
        install_wheel()
    print(program())
