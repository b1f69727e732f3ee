#!/bin/bash
# The fixed realistic libraries, before and after this sitting's proof changes, one run
# at a time and interleaved: the default check at k3 l2 (two threads), and `--prove` at
# each file's header bounds. BASE and NEW: the binaries; run from the repository root.
BASE=${BASE:?the baseline holi}
NEW=${NEW:?the new holi}
for f in bank_fixed allocator_fixed lock_manager_fixed event_bus_fixed; do
  for args in "--k 3 --l 2" "--prove"; do
    for holi in "$BASE" "$NEW"; do
      echo "== $f $args ($holi)"
      /usr/bin/time -f "wall %e s rss %M KB" "$holi" check benchmark/libraries/$f.holi \
        $args --timeout 150 --color never 2>&1 |
        grep -E "^(SAFE|UNSAFE|INCONCLUSIVE)|certificate:|configurations,|^wall" | cut -c1-240
    done
  done
done
