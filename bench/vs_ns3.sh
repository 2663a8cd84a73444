#!/usr/bin/env bash
# Runs the issue-2 benchmark scenario in aqmlab and in the ns-3 reference dumbbell, one after the
# other on this machine, and prints both CPU times and their ratio. Needs the ns-3 anchor binary
# (built outside the project, e.g. by ../shared/ns3-anchor/setup.sh): NS3_DUMBBELL=/path/to/dumbbell.
# ns-3 runs NewReno-style TCP with SACK (TcpLinuxReno), 958-byte segments (1000 bytes on the wire,
# as aqmlab's mss = 1000), static routing and the strong end-system model: its fastest settings.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${NS3_DUMBBELL:?set NS3_DUMBBELL to the ns-3 anchor binary}"
cargo build -q --release -p aqmlab-core --example bench
# Like for like: aqmlab's SACK senders against ns-3's SACK senders.
sack=$(mktemp --suffix=.toml)
trap 'rm -f "$sack"' EXIT
sed 's/variant = "newreno"/variant = "sack"/' bench/scenarios/dumbbell_155mbps_100flows.toml >"$sack"
grep -q 'variant = "sack"' "$sack"
ours=$(./target/release/examples/bench "$sack" 1 | grep '^run 0')
echo "aqmlab: $ours"
ours_cpu=$(sed -E 's/.*cpu ([0-9.]+) s.*/\1/' <<<"$ours")
start=$(date +%s.%N)
ns3=$(/usr/bin/env time -f "%U %S" "$NS3_DUMBBELL" --flows=100 --bottleneckBw=155Mbps \
  --bottleneckDelay=30ms --accessBw=10Mbps --minAccessDelay=1ms --maxAccessDelay=200ms \
  --queueLimitPackets=600 --duration=60 --warmup=10 --queueDisc=Fifo --minRto=200ms \
  --initialCwnd=2 --segmentSize=958 --tcp=TcpLinuxReno --sack=1 --routing=static --strongEs=1 2>&1 >/tmp/aqmlab_ns3.json | tail -1)
ns3_cpu=$(awk '{print $1 + $2}' <<<"$ns3")
echo "ns-3:   cpu ${ns3_cpu} s ($(python3 -c "import json;j=json.load(open('/tmp/aqmlab_ns3.json'));print('utilisation', j['utilization'], 'loss', j['loss_rate'], 'bottleneck pkts/wall-s', j['bottleneck_pkts_per_wall_s'])"))"
python3 -c "print(f'ratio: ns-3 CPU / aqmlab CPU = {$ns3_cpu / $ours_cpu:.1f}x')"
