#!/usr/bin/env bash
# aqmlab beside ns-3.44 on the 155 Mbps dumbbell, in one invocation: the same scenario
# (bench/scenarios/dumbbell_155mbps_100flows.toml with `count`, variant and duration set) runs in
# aqmlab and in the cross-check's ns-3 program (python/aqmlab/ns3/dumbbell.cc, built on first use
# against the `ns3` wheel from PyPI, as `make ns3` does), and the script prints both CPU times
# (user + system of the whole process, /usr/bin/time) and their ratio, with each side's
# utilisation.
#
# The ns-3 side runs the run file `python -m aqmlab.ns3.reference run-file` writes, as
# `aqmlab crosscheck --against ns3` does (translation in python/aqmlab/ns3/translate.py): the
# start times and access delays aqmlab resolved for the seed, 1000-byte packets on the wire
# (958-byte segments), TcpLinuxReno with classic recovery, SACK or not as the variant says. Writing
# the run file runs aqmlab once more, untimed.
#
#   bench/vs_ns3.sh                                 # 100 flows, NewReno, 60 simulated seconds
#   FLOWS="100 400" VARIANT=sack DURATION=180 REPEATS=2 bench/vs_ns3.sh
#   NS3=/path/to/other/build bench/vs_ns3.sh         # another build of the program (same run file)
set -euo pipefail
cd "$(dirname "$0")/.."
FLOWS=${FLOWS:-100}
VARIANT=${VARIANT:-newreno}
DURATION=${DURATION:-60}
REPEATS=${REPEATS:-1}
AQMLAB=${AQMLAB:-.venv/bin/aqmlab}
PY=${PY:-.venv/bin/python}
[[ -x $AQMLAB ]] || { echo "error: $AQMLAB not found (make setup)" >&2; exit 2; }
NS3=${NS3:-$("$PY" python/aqmlab/ns3/build.py)}
cargo build -q --release -p aqmlab-core --example run
CORE=./target/release/examples/run
case $VARIANT in
  newreno | sack) ;;
  *) echo "error: VARIANT must be newreno or sack, not '$VARIANT'" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu() { # CPU seconds (user + system) of a whole command; its stdout goes to $tmp/out
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; return 1; }
  awk '{printf "%.2f", $1 + $2}' "$tmp/time"
}
# A field of the JSON on stdout (the whole output, or its last line when a program prints
# other lines first); British or American spelling of the key.
field() {
  python3 - "$tmp/out" "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read().strip()
try:
    j = json.loads(text)
except json.JSONDecodeError:
    j = json.loads(text.splitlines()[-1])
key = sys.argv[2]
k = next(k for k in (key, key.replace("isation", "ization")) if k in j)
print(f"{j[k]:.4f}")
PY
}

printf "%-6s %-8s %8s %10s %8s %11s %11s %9s %9s\n" flows variant "ns-3 s" "aqmlab s" "core s" \
  "ratio" "ratio core" "util ns3" "util ours"
for n in $FLOWS; do
  scen=$tmp/dumbbell_${n}.toml
  sed -e "s/^count = .*/count = $n/" -e "s/^duration = .*/duration = \"${DURATION}s\"/" \
    -e "s/variant = \"newreno\"/variant = \"$VARIANT\"/" \
    bench/scenarios/dumbbell_155mbps_100flows.toml >"$scen"
  "$PY" -m aqmlab.ns3.reference run-file "$scen" >"$tmp/run_${n}.txt"
  for ((r = 0; r < REPEATS; r++)); do
    ns3=$(cpu "$NS3" --run="$tmp/run_${n}.txt")
    u3=$(field utilisation)
    ours=$(cpu "$AQMLAB" run "$scen" --json --no-plots --out "$tmp/run")
    uo=$(field utilisation)
    core=$(cpu "$CORE" "$scen")
    printf "%-6s %-8s %8s %10s %8s %10.1fx %10.1fx %9s %9s\n" "$n" "$VARIANT" "$ns3" "$ours" \
      "$core" "$(bc -l <<<"$ns3 / $ours")" "$(bc -l <<<"$ns3 / $core")" "$u3" "$uo"
  done
done
