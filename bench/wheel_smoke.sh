#!/usr/bin/env bash
# Wheel smoke test: build the portable wheel (make wheel), install it with the dask
# extra into an empty venv outside the repository, run a paper reproduction there, then a sweep
# on a real Dask cluster (`dask scheduler` + 2 `dask worker` processes, each in a directory of
# its own) with a relative --out, and check that every point finished. Prints the timings.
#   bench/wheel_smoke.sh            (needs network access to PyPI for the wheel's dependencies)
#   WHEEL=dist/aqmlab-...whl bench/wheel_smoke.sh   (skip the build, test this wheel)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
PYTHON=${PYTHON:-python3}
t0=$(date +%s)
if [[ -z "${WHEEL:-}" ]]; then
    make wheel
    WHEEL=$(ls -t dist/aqmlab-*.whl | head -1)
fi
wheel=$(realpath "$WHEEL")
t1=$(date +%s)
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet "${wheel}[dask]"
t2=$(date +%s)
cd "$work"   # no repository around: the scenarios must come from the package
"$work/venv/bin/aqmlab" reproduce adaptive_red_004 --quick --no-progress --out "$work/out"
test -s "$work/out/report.html"
t3=$(date +%s)

# A real Dask cluster on 127.0.0.1: scheduler + 2 workers, each worker in its own directory.
mkdir -p "$work/sched" "$work/w0" "$work/w1" "$work/client"
(cd "$work/sched" && exec "$work/venv/bin/dask" scheduler --host 127.0.0.1 --port 0 \
    --no-dashboard --scheduler-file "$work/sched/scheduler.json" >"$work/sched/log" 2>&1) &
pids+=($!)
for _ in $(seq 600); do [[ -s "$work/sched/scheduler.json" ]] && break; sleep 0.1; done
address=$("$work/venv/bin/python" -c \
    "import json,sys; print(json.load(open(sys.argv[1]))['address'])" "$work/sched/scheduler.json")
for i in 0 1; do
    (cd "$work/w$i" && exec "$work/venv/bin/dask" worker "$address" --nthreads 1 \
        --no-dashboard --local-directory "$work/w$i" >"$work/w$i/log" 2>&1) &
    pids+=($!)
done
"$work/venv/bin/python" -c "from distributed import Client; \
c = Client('$address', timeout=60); c.wait_for_workers(2, timeout=120); c.close()"
cp "$repo/tests/data/wheel_smoke/tiny.toml" "$repo/tests/data/wheel_smoke/sweep.toml" "$work/client/"
cd "$work/client"
"$work/venv/bin/aqmlab" sweep sweep.toml --out rel/out --scheduler "$address" --no-progress
"$work/venv/bin/python" - <<'PY'
import pandas as pd
from aqmlab import sweep
t = pd.read_parquet("rel/out/runs.parquet")
assert len(t) == 4 and t["error"].isna().all(), t[["error"]]
assert all(sweep.is_complete(__import__("pathlib").Path(d)) for d in t["run_dir"])
print(f"dask sweep: {len(t)} points, every one finished, under {t['run_dir'][0].rsplit('/runs/', 1)[0]}")
PY
t4=$(date +%s)
echo "wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB)"
echo "timings: make wheel $((t1 - t0)) s, venv + install $((t2 - t1)) s," \
    "reproduce --quick $((t3 - t2)) s, dask cluster + sweep $((t4 - t3)) s"
