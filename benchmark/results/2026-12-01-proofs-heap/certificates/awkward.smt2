; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: cell x ≥ 0
; invariant: cell x ≤ 1
; turn relation: while cell x = 1, cell x′ = cell x
; turn relation: cell x′ = cell x or cell x′ = 1
; turn relation: cell x′ ≥ cell x

; obligation 1: the turn relation holds of two turns in a row
(push 1)
(declare-fun s1_0_1 () Int)
(declare-fun s2_0_1 () Int)
(declare-fun s3_0_1 () Int)
(assert (>= (+ 0 (* s1_0_1 1)) 0))
(assert (>= (+ 0 (* s1_0_1 (- 1))) (- 1)))
(assert (>= (+ 0 (* s2_0_1 1)) 0))
(assert (>= (+ 0 (* s2_0_1 (- 1))) (- 1)))
(assert (=> (= s1_0_1 1) (= s2_0_1 s1_0_1)))
(assert (or (= s2_0_1 s1_0_1) (= s2_0_1 1)))
(assert (>= s2_0_1 s1_0_1))
(assert (>= (+ 0 (* s3_0_1 1)) 0))
(assert (>= (+ 0 (* s3_0_1 (- 1))) (- 1)))
(assert (=> (= s2_0_1 1) (= s3_0_1 s2_0_1)))
(assert (or (= s3_0_1 s2_0_1) (= s3_0_1 1)))
(assert (>= s3_0_1 s2_0_1))
(assert (not (and (=> (= s1_0_1 1) (= s3_0_1 s1_0_1))
          (or (= s3_0_1 s1_0_1) (= s3_0_1 1))
          (>= s3_0_1 s1_0_1))))
(check-sat)
(pop 1)

; obligation 2: the invariant holds when `awkward` returns
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 3: the invariant holds when the function at /work/main/examples/awkward.holi:10:3 calls the client at /work/main/examples/awkward.holi:12:5
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 1 1)) 0) (>= (+ 0 (* 1 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 4: the assert at /work/main/examples/awkward.holi:13:5 holds
(push 1)
(declare-fun s6_0_3 () Int)
(assert (>= (+ 0 (* s6_0_3 1)) 0))
(assert (>= (+ 0 (* s6_0_3 (- 1))) (- 1)))
(assert (=> (= 1 1) (= s6_0_3 1)))
(assert (or (= s6_0_3 1) (= s6_0_3 1)))
(assert (>= s6_0_3 1))
(assert (let ((a!1 (not (= (ite (= s6_0_3 1) 1 0) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the turn relation holds from the entry of the function at /work/main/examples/awkward.holi:10:3 to its return
(push 1)
(declare-fun s5_0_3 () Int)
(declare-fun s6_0_3 () Int)
(assert (>= (+ 0 (* s5_0_3 1)) 0))
(assert (>= (+ 0 (* s5_0_3 (- 1))) (- 1)))
(assert (>= (+ 0 (* s6_0_3 1)) 0))
(assert (>= (+ 0 (* s6_0_3 (- 1))) (- 1)))
(assert (=> (= 1 1) (= s6_0_3 1)))
(assert (or (= s6_0_3 1) (= s6_0_3 1)))
(assert (>= s6_0_3 1))
(assert (not (= (ite (= s6_0_3 1) 1 0) 0)))
(assert (not (and (=> (= s5_0_3 1) (= s6_0_3 s5_0_3))
          (or (= s6_0_3 s5_0_3) (= s6_0_3 1))
          (>= s6_0_3 s5_0_3))))
(check-sat)
(pop 1)
