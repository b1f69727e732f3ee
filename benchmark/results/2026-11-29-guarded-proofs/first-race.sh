P=/work/shared/holik-bench/programs
for f in $P/*.holi; do
 for kl in "3 2" "4 3"; do set -- $kl
  for b in holi-old holi-new; do
   r=$(timeout 60 ./$b check $f --k $1 --l $2 --first --format json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); c=d.get('counterexamples') or []; print(d.get('verdict'), d['stats']['configurations'], len(c[0]['trace']) if c else '-', round(d['stats']['seconds'],2))" 2>/dev/null || echo TIMEOUT)
   echo "$(basename $f) k$1l$2 $b $r"
  done
 done
done
