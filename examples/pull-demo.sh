#!/bin/sh
# Lint what is running: serve examples/fabric with the device simulator (SSH + SNMP on 127.0.0.1),
# collect it with `losslessd pull`, then lint the snapshot. Used by `make demo`. The snapshot stays
# in build/demo/snapshot (what the pull prints is there afterwards); the simulator's files do not.
set -eu
LOSSLESSD=${LOSSLESSD:-losslessd}
snapshot=build/demo/snapshot
rm -rf "$snapshot"  # pull refuses a folder that is not empty: this one is the demo's own
mkdir -p "$(dirname "$snapshot")"
work=$(mktemp -d)
sim=
cleanup() {
	[ -z "$sim" ] || { kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; }
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

"$LOSSLESSD" sim --fabric examples/fabric --out "$work/sim" >"$work/sim.log" 2>&1 &
sim=$!
tries=0
until grep -q '^Serving' "$work/sim.log" 2>/dev/null; do
	tries=$((tries + 1))
	if [ "$tries" -gt 150 ] || ! kill -0 "$sim" 2>/dev/null; then
		echo "the simulator did not start:" >&2
		cat "$work/sim.log" >&2
		exit 2
	fi
	sleep 0.2
done
# The simulator's throwaway device secrets, by the variable names its inventory references.
eval "$(grep '^export ' "$work/sim.log")"

echo "== losslessd pull --inventory <simulator inventory> --out $snapshot"
"$LOSSLESSD" pull --inventory "$work/sim/inventory.yaml" --known-hosts "$work/sim/known_hosts" \
	--out "$snapshot"
# Cabling and routing tables are not pulled: the topology file and the tables it names come along.
cp examples/fabric/topology.yaml "$snapshot/"
cp -R examples/fabric/routes "$snapshot/"
echo "== losslessd lint $snapshot (only the summary: the offline findings, plus SYS015 for the simulator's SNMPv2c on three switches)"
rc=0
"$LOSSLESSD" lint "$snapshot" -o "$work/report.txt" || rc=$?
tail -n 1 "$work/report.txt"
[ "$rc" -le 1 ]
