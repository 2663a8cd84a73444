"""Peak memory and CPU of one run against the number of TCP flows (goals: 10^4 flows in
< 1 GB, 10^5 flows run). Each size runs ``aqmlab run --json --no-plots`` in a child process
under ``/usr/bin/time -v`` (peak RSS of the whole process: Python, pyarrow and the core) and
the table replaces the block between the markers in ``docs/robustness.md``.

    .venv/bin/python bench/flows_memory.py                  # 10^3, 10^4, 10^5 flows
    .venv/bin/python bench/flows_memory.py --flows 1000 --no-write
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "robustness.md"
BEGIN, END = "<!-- flows-memory:begin -->", "<!-- flows-memory:end -->"

SCENARIO = """\
name = "{n} TCP flows"
seed = 1
duration = "{duration}"
warmup = "1s"

[bottleneck]
rate = "1Gbps"
delay = "10ms"
buffer = 2000
qdisc = {{ kind = "red", min_th = 200, max_th = 1500, max_p = 0.1 }}

[[flows]]
kind = "tcp"
count = {n}
access_delay = {{ uniform = ["1ms", "50ms"] }}
start = {{ uniform = ["0s", "1s"] }}
group = "bulk"
"""


def measure(n: int, duration: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        scen = Path(tmp, "flows.toml")
        scen.write_text(SCENARIO.format(n=n, duration=duration))
        cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "aqmlab", "run", str(scen)]
        cmd += ["--json", "--no-plots", "--out", str(Path(tmp, "out"))]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"{n} flows: exit {proc.returncode}: {proc.stderr[-2000:]}")

        def field(name: str) -> str:
            m = re.search(rf"{re.escape(name)}: (.+)", proc.stderr)
            if m is None:
                raise SystemExit(f"no {name!r} in /usr/bin/time's output")
            return m.group(1).strip()

        wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
        secs = sum(float(x) * 60**i for i, x in enumerate(reversed(wall)))
        import json

        summary = json.loads(proc.stdout)
        return {
            "flows": n,
            "rss_mib": int(field("Maximum resident set size (kbytes)")) / 1024,
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "wall_s": secs,
            "arrivals": summary["arrivals"],
            "utilisation": summary["utilisation"],
        }


def table(rows: list[dict[str, float]], duration: str) -> str:
    lines = [
        f"One run of `aqmlab run --json --no-plots`: a 1 Gbps RED dumbbell, {duration} simulated, "
        "N bulk TCP flows (access delays uniform in 1-50 ms, starts in the first second). "
        "Peak RSS is the whole process (Python, pyarrow, the core) from `/usr/bin/time -v`; "
        "regenerate with `.venv/bin/python bench/flows_memory.py`.",
        "",
        "| TCP flows | peak RSS (MiB) | CPU (s) | wall (s) | bottleneck arrivals | utilisation |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {int(r['flows']):,} | {r['rss_mib']:.0f} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} "
            f"| {int(r['arrivals']):,} | {r['utilisation']:.3f} |"
        )
    return "\n".join(lines)


def write(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f"{DOC}: no {BEGIN} ... {END} block")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--flows", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--duration", default="3s")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    args = ap.parse_args()
    rows = []
    for n in args.flows:
        r = measure(n, args.duration)
        print(f"{n} flows: {r['rss_mib']:.0f} MiB, {r['cpu_s']:.1f} s CPU", flush=True)
        rows.append(r)
    text = table(rows, args.duration)
    print(text)
    if not args.no_write:
        write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
