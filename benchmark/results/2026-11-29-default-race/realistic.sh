#!/bin/bash
# The default check of the fixed realistic libraries at their header's k3 l2 (lock
# manager's header says k2 l1; k3 l2 is the cell that did not finish), one at a time.
# HOLI: the binary; run from the repository root.
HOLI=${HOLI:-target/release/holi}
for f in bank_fixed allocator_fixed lock_manager_fixed; do
  /usr/bin/time -f "$f wall %e s rss %M KB" "$HOLI" check benchmark/libraries/$f.holi \
    --k 3 --l 2 --timeout 150 --color never 2>&1 |
    grep -v "invariant at every\|across every" | grep -v '^ *$' | head -12
done
