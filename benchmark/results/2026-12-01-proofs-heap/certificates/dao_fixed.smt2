; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: balance ≥ 0

; obligation 1: the initial store satisfies the invariant
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 100 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the invariant holds when `withdraw` calls the client at /work/main/examples/dao_fixed.holi:12:5
(push 1)
(declare-fun s1_0 () Int)
(declare-fun v1 () Int)
(assert (>= (+ 0 (* s1_0 1)) 0))
(assert (let ((a!1 (ite (= (ite (< s1_0 v1) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (let ((a!1 (>= (+ 0 (* (- s1_0 v1) 1)) 0)))
  (not (and a!1))))
(check-sat)
(pop 1)

; obligation 3: the assert at /work/main/examples/dao_fixed.holi:13:5 holds
(push 1)
(declare-fun s1_0 () Int)
(declare-fun s2_0 () Int)
(declare-fun v1 () Int)
(assert (>= (+ 0 (* s1_0 1)) 0))
(assert (>= (+ 0 (* s2_0 1)) 0))
(assert (let ((a!1 (ite (= (ite (< s1_0 v1) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (let ((a!1 (ite (= (ite (< s2_0 0) 1 0) 0) 1 0)))
  (not (not (= a!1 0)))))
(check-sat)
(pop 1)
