"""Where a full reproduction's CPU goes: runs and CPU seconds per paper and section.

Run the reproductions with ``AQMLAB_RUN_TIMES=FILE`` set (every executed run appends its CPU
and wall seconds, :data:`aqmlab.sweep.RUN_TIMES_ENV`), then::

    .venv/bin/python bench/reproduce_cost.py OUT FILE

prints a Markdown table: for each paper under ``OUT/<id>/`` (its ``runs.parquet``) and each
section of it (a figure, an experiment, a set-up choice or a sensitivity run), the distinct
runs, the CPU seconds of those runs and the mean per run. Runs taken from the cache have no
line in FILE and are counted as untimed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

Row = dict[str, Any]


def _adaptive(r: Row) -> str:
    if r.get("section") == "testbed":
        return "§V testbed, simulated"
    f = str(r.get("figure"))
    named = {
        "6": "Figs. 6/7 (one run per setting and seed, its phases as measurement windows)",
        "6-5ms": "Figs. 6/7, last link 5 ms (set-up choice)",
        "dt": "DropTail (Figs. 1, 4)",
    }
    return named.get(f, f"Fig. {f}")


def _nlred(r: Row) -> str:
    f = str(r.get("figure"))
    return "Fig. 21, byte-mode buffers (set-up choice)" if f == "21-bytes" else f"Figs. {f}"


def _chablis(r: Row) -> str:
    s = str(r.get("settings"))
    return "exps. 1-6, the paper's set-up" if s == "main" else f"exps. 1-6, settings '{s}'"


def _sfred(r: Row) -> str:
    return f"{r.get('experiment')}, reading '{r.get('reading')}'"


def _green_tcp(r: Row) -> str:
    if r.get("tcp") == "sack":
        return "exp. 1 with SACK senders (sensitivity)"
    alpha = ", GREEN without alpha(t)" if "no_alpha" in str(r.get("algorithm")) else ""
    return f"exp. {r.get('experiment')}{alpha}"


def _green_rate(r: Row) -> str:
    v = str(r.get("variant"))
    return f"trial {r.get('trial')}" + ("" if v == "paper" else f", {v}")


SECTIONS: dict[str, Callable[[Row], str]] = {
    "adaptive_red_004": _adaptive,
    "nlred_003": _nlred,
    "chablis_002": _chablis,
    "sfred_003": _sfred,
    "green_tcp_000": _green_tcp,
    "green_rate_001": _green_rate,
}


def read_times(path: Path) -> pd.Series:
    """CPU seconds by run directory (the last line of a run that ran twice)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""  # every run from the cache
    rows = [json.loads(x) for x in text.splitlines() if x.strip()]
    if not rows:
        return pd.Series(dtype=float)
    df = pd.DataFrame(rows)
    col = "cpu_s" if "cpu_s" in df.columns else "cpu"
    return df.drop_duplicates("run_dir", keep="last").set_index("run_dir")[col]


def table(out: Path, times: pd.Series) -> str:
    lines = ["| paper | section | runs | CPU s | s per run |", "|---|---|---|---|---|"]
    totals = []
    for pid, section in SECTIONS.items():
        f = out / pid / "runs.parquet"
        if not f.exists():
            continue
        runs = pd.read_parquet(f).drop_duplicates("run_dir").copy()
        runs["cpu"] = runs["run_dir"].map(times)
        runs["section"] = [section(r) for r in runs.to_dict("records")]
        for name, g in runs.groupby("section", sort=False):
            untimed = len(g) - int(g["cpu"].count())
            n = f"{len(g)}" + (f" ({untimed} untimed)" if untimed else "")
            cpu = float(g["cpu"].sum())
            lines.append(f"| `{pid}` | {name} | {n} | {cpu:.1f} | {g['cpu'].mean():.3f} |")
        totals.append((pid, len(runs), float(runs["cpu"].sum())))
    for pid, n, cpu in totals:
        lines.append(f"| `{pid}` | **all** | **{n}** | **{cpu:.1f}** | {cpu / max(n, 1):.3f} |")
    n_all, cpu_all = sum(t[1] for t in totals), sum(t[2] for t in totals)
    lines.append(f"| all | | **{n_all}** | **{cpu_all:.1f}** | |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the --out of aqmlab reproduce all")
    ap.add_argument("times", type=Path, help="the AQMLAB_RUN_TIMES file")
    args = ap.parse_args(argv)
    print(table(args.out, read_times(args.times)), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
