; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: cell balance ≥ 0

; obligation 1: the invariant holds when `account` returns
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 100 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the invariant holds when the function at /work/main/examples/account_fixed.holi:9:3 calls the client at /work/main/examples/account_fixed.holi:12:7
(push 1)
(declare-fun s2_0_2 () Int)
(declare-fun v2 () Int)
(assert (>= (+ 0 (* s2_0_2 1)) 0))
(assert (not (= (ite (<= v2 s2_0_2) 1 0) 0)))
(assert (let ((a!1 (>= (+ 0 (* (- s2_0_2 v2) 1)) 0)))
  (not (and a!1))))
(check-sat)
(pop 1)

; obligation 3: the assert at /work/main/examples/account_fixed.holi:13:7 holds
(push 1)
(declare-fun s2_0_2 () Int)
(declare-fun s3_0_2 () Int)
(declare-fun v2 () Int)
(assert (>= (+ 0 (* s2_0_2 1)) 0))
(assert (>= (+ 0 (* s3_0_2 1)) 0))
(assert (not (= (ite (<= v2 s2_0_2) 1 0) 0)))
(assert (let ((a!1 (not (= (ite (<= 0 s3_0_2) 1 0) 0))))
  (not a!1)))
(check-sat)
(pop 1)
