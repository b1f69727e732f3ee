; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: x ≥ 0
; invariant: x ≤ 1
; turn relation: while x = 1, x′ = x
; turn relation: x′ = x or x′ = 1
; turn relation: x′ ≥ x

; obligation 1: the initial store satisfies the invariant
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the turn relation holds of two turns in a row
(push 1)
(declare-fun s1_0 () Int)
(declare-fun s2_0 () Int)
(declare-fun s3_0 () Int)
(assert (>= (+ 0 (* s1_0 1)) 0))
(assert (>= (+ 0 (* s1_0 (- 1))) (- 1)))
(assert (>= (+ 0 (* s2_0 1)) 0))
(assert (>= (+ 0 (* s2_0 (- 1))) (- 1)))
(assert (=> (= s1_0 1) (= s2_0 s1_0)))
(assert (or (= s2_0 s1_0) (= s2_0 1)))
(assert (>= s2_0 s1_0))
(assert (>= (+ 0 (* s3_0 1)) 0))
(assert (>= (+ 0 (* s3_0 (- 1))) (- 1)))
(assert (=> (= s2_0 1) (= s3_0 s2_0)))
(assert (or (= s3_0 s2_0) (= s3_0 1)))
(assert (>= s3_0 s2_0))
(assert (not (and (=> (= s1_0 1) (= s3_0 s1_0))
          (or (= s3_0 s1_0) (= s3_0 1))
          (>= s3_0 s1_0))))
(check-sat)
(pop 1)

; obligation 3: the invariant holds when `run` calls the client at /work/main/../shared/holik-bench/programs/awkward_safe.holi:5:47
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `run` calls the client at /work/main/../shared/holik-bench/programs/awkward_safe.holi:5:60
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 1 1)) 0) (>= (+ 0 (* 1 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the assert at /work/main/../shared/holik-bench/programs/awkward_safe.holi:5:65 holds
(push 1)
(declare-fun s6_0 () Int)
(assert (>= (+ 0 (* s6_0 1)) 0))
(assert (>= (+ 0 (* s6_0 (- 1))) (- 1)))
(assert (=> (= 1 1) (= s6_0 1)))
(assert (or (= s6_0 1) (= s6_0 1)))
(assert (>= s6_0 1))
(assert (let ((a!1 (not (= (ite (= s6_0 1) 1 0) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 6: the turn relation holds from the entry of `run` to its return
(push 1)
(declare-fun s4_0 () Int)
(declare-fun s6_0 () Int)
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s4_0 (- 1))) (- 1)))
(assert (>= (+ 0 (* s6_0 1)) 0))
(assert (>= (+ 0 (* s6_0 (- 1))) (- 1)))
(assert (=> (= 1 1) (= s6_0 1)))
(assert (or (= s6_0 1) (= s6_0 1)))
(assert (>= s6_0 1))
(assert (not (= (ite (= s6_0 1) 1 0) 0)))
(assert (not (and (=> (= s4_0 1) (= s6_0 s4_0))
          (or (= s6_0 s4_0) (= s6_0 1))
          (>= s6_0 s4_0))))
(check-sat)
(pop 1)
