#!/usr/bin/env bash
# Records bench/reference/ns3_<name>.json from bench/reference/scenarios/<name>.toml with the
# cross-check's ns-3 program (python -m aqmlab.ns3.reference record; the program is built on
# first use, `make ns3` installs ns-3.44). One run at a time, under `nice`: the 155 Mbps runs take
# a few minutes of CPU each.
#
#   bench/reference/record.sh                      # every scenario
#   bench/reference/record.sh dumbbell_10mbps_10flows_cubic_sack ...
#
# Seeds: the scenario's seed and the next two (3 seeds), but one seed for the 100 Mbps and
# 155 Mbps dumbbells (SEEDS=N sets the count for all).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
[[ -x $PY ]] || { echo "error: $PY not found (make setup)" >&2; exit 2; }
names=("$@")
if ((${#names[@]} == 0)); then
  for f in bench/reference/scenarios/*.toml; do names+=("$(basename "$f" .toml)"); done
fi
for name in "${names[@]}"; do
  scen=bench/reference/scenarios/$name.toml
  [[ -f $scen ]] || { echo "error: $scen not found" >&2; exit 2; }
  case $name in
    *_100mbps_* | *_155mbps_*) seeds=${SEEDS:-1} ;;
    *) seeds=${SEEDS:-3} ;;
  esac
  nice -n 10 "$PY" -m aqmlab.ns3.reference record "$scen" --seeds "$seeds" \
    -o "bench/reference/ns3_$name.json"
done
