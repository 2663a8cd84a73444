#!/usr/bin/env bash
# aqmlab beside ns-3.44 on the 155 Mbps dumbbell, in one invocation: the same scenario
# (bench/scenarios/dumbbell_155mbps_100flows.toml with `count`, variant and duration set) runs in
# aqmlab and in the project's own ns-3 program (bench/ns3/dumbbell.cc, built by bench/ns3/build.sh
# against the `ns3` wheel from PyPI), and the script prints both CPU times (user + system of the
# whole process, /usr/bin/time) and their ratio, with each side's utilisation and loss.
#
# Same scenario semantics on both sides: N bulk flows starting in [0, 1 s), 10 Mbps access links
# with one-way delays linear over 1-200 ms, a 155 Mbps / 30 ms bottleneck with a 600-packet FIFO,
# 1 Gbps / 0 ms sink links, 1000-byte packets on the wire (ns-3: 958-byte segments), NewReno
# (ns-3: classic recovery) or SACK, an ACK per segment, initial window 2, minimum RTO 200 ms.
#
#   bench/vs_ns3.sh                                 # 100 flows, NewReno, 60 simulated seconds
#   FLOWS="100 400" VARIANT=sack DURATION=180 REPEATS=2 bench/vs_ns3.sh
#   NS3=/path/to/other/dumbbell bench/vs_ns3.sh      # another ns-3 program with the same options
#                                                     # (e.g. a reference dumbbell kept elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
FLOWS=${FLOWS:-100}
VARIANT=${VARIANT:-newreno}
DURATION=${DURATION:-60}
REPEATS=${REPEATS:-1}
AQMLAB=${AQMLAB:-.venv/bin/aqmlab}
[[ -x $AQMLAB ]] || { echo "error: $AQMLAB not found (make setup)" >&2; exit 2; }
NS3=${NS3:-$(bench/ns3/build.sh)}
cargo build -q --release -p aqmlab-core --example run
CORE=./target/release/examples/run
case $VARIANT in
  newreno) sack=0 ;;
  sack) sack=1 ;;
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
  warmup=$(sed -n 's/^warmup = "\(.*\)s"/\1/p' "$scen")
  for ((r = 0; r < REPEATS; r++)); do
    ns3=$(cpu "$NS3" --flows="$n" --bottleneckBw=155Mbps --bottleneckDelay=30ms --accessBw=10Mbps \
      --minAccessDelay=1ms --maxAccessDelay=200ms --queueLimitPackets=600 \
      --duration="$DURATION" --warmup="$warmup" --sack="$sack" --segmentSize=958 \
      --minRto=200ms --initialCwnd=2)
    u3=$(field utilisation)
    ours=$(cpu "$AQMLAB" run "$scen" --json --no-plots --out "$tmp/run")
    uo=$(field utilisation)
    core=$(cpu "$CORE" "$scen")
    printf "%-6s %-8s %8s %10s %8s %10.1fx %10.1fx %9s %9s\n" "$n" "$VARIANT" "$ns3" "$ours" \
      "$core" "$(bc -l <<<"$ns3 / $ours")" "$(bc -l <<<"$ns3 / $core")" "$u3" "$uo"
  done
done
