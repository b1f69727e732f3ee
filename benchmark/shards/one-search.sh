#!/bin/sh
# One search cut across shards (lang/shards.md), measured on this machine: the run
# without shards, then for each N the N shards one after another (as N machines would
# run them side by side), each with its wall time, peak memory and the configurations
# of its share, and the merge checked against N = 1.
#
#   benchmark/shards/one-search.sh OUT CUT "N..." FILE [OPTIONS...]
#
# OUT: a folder for runs.csv and the parts; CUT: --cut-after; "N...": the counts of
# shards, for instance "1 2 4".
set -eu
out=$1 cut=$2 counts=$3
shift 3
holi=${HOLI:-target/release/holi}
mkdir -p "$out"
csv="$out/runs.csv"
[ -f "$csv" ] || echo "cut,n,shard,seconds,max_rss_kb,first_configurations,lane_configurations,lanes" > "$csv"
/usr/bin/time -f "%e %M" -o "$out/whole.time" "$holi" check "$@" --format json > "$out/whole.json" || true
set -- "$@"
for n in $counts; do
    i=1
    while [ "$i" -le "$n" ]; do
        part="$out/part-$cut-$n-$i.json"
        /usr/bin/time -f "%e %M" -o "$out/shard.time" "$holi" check "$@" --format json \
            --cut-after "$cut" --shard "$i/$n" --part "$part"
        python3 - "$part" "$out/shard.time" "$cut" "$n" "$i" >> "$csv" <<'PY'
import json, sys
part, timing, cut, n, i = sys.argv[1:]
seconds, rss = open(timing).read().split()
share = json.load(open(part))["cells"][0]["search"]["share"]
lanes = sum(p["stats"]["configurations"] for _, p in share["searched"])
print(f"{cut},{n},{i},{seconds},{rss},{share['first']['stats']['configurations']},{lanes},{len(share['searched'])}")
PY
        i=$((i + 1))
    done
    "$holi" merge "$out"/part-"$cut"-"$n"-*.json > "$out/merged-$cut-$n.json" || true
done
