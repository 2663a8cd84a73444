#!/usr/bin/env bash
# aqmlab beside ns-2.35 on the 155 Mbps dumbbells, in one invocation: for each flow count, the
# same scenario (bench/scenarios/dumbbell_155mbps_100flows.toml with `count` and the duration set)
# runs in aqmlab and in ns-2 (`ns`, Debian package ns2), and the script prints both CPU times
# (user + system of the whole process, as /usr/bin/time reports) and their ratio.
#
# The ns-2 side is the cross-check's translation (bench/emit_tcl.py: packet sizes, TCP settings
# and queue limits matched as docs/validation.md describes), and aqmlab runs the same scenario
# with the cross-check's TCP model (`tcp.model = "ns2"`, ns-2.35's agents). aqmlab is timed
# twice: the Python CLI (`aqmlab run --json --no-plots`, what a user runs, start-up and Parquet
# writing included) and the core alone (the Rust `run` example).
#
#   bench/vs_ns2.sh                      # 100 and 400 flows, NewReno, 180 simulated seconds
#   FLOWS="100" VARIANT=sack DURATION=60s REPEATS=3 bench/vs_ns2.sh
#   EMIT_TCL="cmd"   replaces the Tcl generator: called as `cmd SCENARIO FILE`
set -euo pipefail
cd "$(dirname "$0")/.."
FLOWS=${FLOWS:-"100 400"}
VARIANT=${VARIANT:-newreno}
DURATION=${DURATION:-180s}
REPEATS=${REPEATS:-1}
NS=${NS:-ns}
AQMLAB=${AQMLAB:-.venv/bin/aqmlab}
command -v "$NS" >/dev/null || { echo "error: $NS not found (apt-get install ns2)" >&2; exit 2; }
[[ -x $AQMLAB ]] || { echo "error: $AQMLAB not found (make setup)" >&2; exit 2; }
cargo build -q --release -p aqmlab-core --example run
CORE=./target/release/examples/run

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu() { # CPU seconds (user + system) of a whole command; its output goes to $tmp/out
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; return 1; }
  awk '{printf "%.2f", $1 + $2}' "$tmp/time"
}

printf "%-6s %-8s %8s %10s %10s %9s %11s\n" flows variant "ns-2 s" "aqmlab s" "core s" "ratio" "ratio core"
for n in $FLOWS; do
  scen=$tmp/dumbbell_${n}.toml
  sed -e "s/^count = .*/count = $n/" -e "s/^duration = .*/duration = \"$DURATION\"/" \
    -e "s/variant = \"newreno\"/variant = \"$VARIANT\"/" -e 's/mss = 1000 }/mss = 1000, model = "ns2" }/' \
    bench/scenarios/dumbbell_155mbps_100flows.toml >"$scen"
  grep -q 'model = "ns2"' "$scen" || { echo "error: could not set tcp.model in $scen" >&2; exit 2; }
  tcl=$tmp/dumbbell_${n}.tcl
  if [[ -n ${EMIT_TCL:-} ]]; then
    $EMIT_TCL "$scen" "$tcl"
  else
    "$(dirname "$AQMLAB")/python" bench/emit_tcl.py "$scen" "$tcl"
  fi
  for ((r = 0; r < REPEATS; r++)); do
    # Alternate which simulator goes first, so neither always meets the same machine load.
    if ((r % 2 == 0)); then
      ns2=$(cd "$tmp" && cpu "$NS" "$tcl")
      ours=$(cpu "$AQMLAB" run "$scen" --json --no-plots --out "$tmp/run")
      core=$(cpu "$CORE" "$scen")
    else
      core=$(cpu "$CORE" "$scen")
      ours=$(cpu "$AQMLAB" run "$scen" --json --no-plots --out "$tmp/run")
      ns2=$(cd "$tmp" && cpu "$NS" "$tcl")
    fi
    printf "%-6s %-8s %8s %10s %10s %8.1fx %10.1fx\n" "$n" "$VARIANT" "$ns2" "$ours" "$core" \
      "$(bc -l <<<"$ns2 / $ours")" "$(bc -l <<<"$ns2 / $core")"
  done
done
