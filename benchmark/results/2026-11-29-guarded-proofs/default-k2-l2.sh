P=/work/shared/holik-bench/programs
for f in $P/*.holi /work/main/examples/*.holi /work/main/benchmark/libraries/*.holi; do
 for b in holi-old holi-new; do
  s=$(date +%s.%N)
  r=$(timeout 120 /tmp/s/$b check $f --k 2 --l 2 -j 1 --no-replay 2>/dev/null | grep -o "^SAFE for every k and l\|^SAFE within\|^UNSAFE\|^INCONCLUSIVE\|^STUCK" | head -1)
  e=$(date +%s.%N)
  echo "$(basename $f) $b $(echo "$e - $s" | bc) $r" | tr ' ' '|'
 done
done
