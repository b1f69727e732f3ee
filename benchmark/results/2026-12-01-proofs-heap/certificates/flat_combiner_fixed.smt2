; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: cnt ≥ 0
; invariant: running ≥ 0
; invariant: running ≤ 1

; obligation 1: the initial store satisfies the invariant
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0)
                (>= (+ 0 (* 0 1)) 0)
                (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the invariant holds when `enlist` returns
(push 1)
(declare-fun s2_1 () Int)
(declare-fun s2_2 () Int)
(assert (>= (+ 0 (* s2_1 1)) 0))
(assert (>= (+ 0 (* s2_2 1)) 0))
(assert (>= (+ 0 (* s2_2 (- 1))) (- 1)))
(assert (not (not (= s2_2 0))))
(assert (let ((a!1 (>= (+ 0 (* (+ s2_1 1) 1)) 0)))
  (not (and a!1))))
(check-sat)
(pop 1)

; obligation 3: the invariant holds when `run` calls the client at /work/main/examples/flat_combiner_fixed.holi:25:5
(push 1)
(declare-fun s3_1 () Int)
(assert (>= (+ 0 (* s3_1 1)) 0))
(assert (not (= (ite (< 0 s3_1) 1 0) 0)))
(assert (let ((a!1 (>= (+ 0 (* (- s3_1 1) 1)) 0)))
(let ((a!2 (and a!1 (>= (+ 0 (* 1 1)) 0) (>= (+ 0 (* 1 (- 1))) (- 1)))))
  (not a!2))))
(check-sat)
(pop 1)

; obligation 4: the assert at /work/main/examples/flat_combiner_fixed.holi:26:5 holds
(push 1)
(declare-fun s3_1 () Int)
(declare-fun s4_1 () Int)
(assert (>= (+ 0 (* s3_1 1)) 0))
(assert (>= (+ 0 (* s4_1 1)) 0))
(assert (not (= (ite (< 0 s3_1) 1 0) 0)))
(assert (let ((a!1 (ite (= (ite (< s4_1 0) 1 0) 0) 1 0)))
  (not (not (= a!1 0)))))
(check-sat)
(pop 1)

; obligation 5: the invariant holds when `run` returns
(push 1)
(declare-fun s3_1 () Int)
(assert (>= (+ 0 (* s3_1 1)) 0))
(assert (let ((a!1 (not (= (ite (< 0 s3_1) 1 0) 0))))
  (not a!1)))
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 6: the invariant holds when the recursive function at /work/main/examples/flat_combiner_fixed.holi:20:1 calls the client at /work/main/examples/flat_combiner_fixed.holi:25:5
(push 1)
(declare-fun s9_1 () Int)
(assert (>= (+ 0 (* s9_1 1)) 0))
(assert (not (= (ite (< 0 s9_1) 1 0) 0)))
(assert (let ((a!1 (>= (+ 0 (* (- s9_1 1) 1)) 0)))
(let ((a!2 (and a!1 (>= (+ 0 (* 1 1)) 0) (>= (+ 0 (* 1 (- 1))) (- 1)))))
  (not a!2))))
(check-sat)
(pop 1)

; obligation 7: the assert at /work/main/examples/flat_combiner_fixed.holi:26:5 holds
(push 1)
(declare-fun s9_1 () Int)
(declare-fun s10_1 () Int)
(assert (>= (+ 0 (* s9_1 1)) 0))
(assert (>= (+ 0 (* s10_1 1)) 0))
(assert (not (= (ite (< 0 s9_1) 1 0) 0)))
(assert (let ((a!1 (ite (= (ite (< s10_1 0) 1 0) 0) 1 0)))
  (not (not (= a!1 0)))))
(check-sat)
(pop 1)

; obligation 8: the invariant holds when the recursive function at /work/main/examples/flat_combiner_fixed.holi:20:1 returns
(push 1)
(declare-fun s9_1 () Int)
(assert (>= (+ 0 (* s9_1 1)) 0))
(assert (let ((a!1 (not (= (ite (< 0 s9_1) 1 0) 0))))
  (not a!1)))
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)
