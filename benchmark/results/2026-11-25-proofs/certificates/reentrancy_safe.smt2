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

; obligation 2: the invariant holds when `withdraw` calls the client at /work/wt/proof/../shared/holik-bench/programs/reentrancy_safe.holi:7:8
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (let ((a!1 (ite (= (ite (< v1 v2) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (let ((a!1 (>= (+ 0 (* (- v1 v2) 1)) 0)))
  (not (and a!1))))
(check-sat)
(pop 1)

; obligation 3: the assert at /work/wt/proof/../shared/holik-bench/programs/reentrancy_safe.holi:8:8 holds
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(declare-fun v3 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (let ((a!1 (ite (= (ite (< v1 v2) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (and (>= (+ 0 (* v3 1)) 0)))
(assert and)
(assert (let ((a!1 (ite (= (ite (< v3 0) 1 0) 0) 1 0)))
  (not (not (= a!1 0)))))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `withdraw` returns
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(declare-fun v3 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (let ((a!1 (ite (= (ite (< v1 v2) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (and (>= (+ 0 (* v3 1)) 0)))
(assert and)
(assert (let ((a!1 (ite (= (ite (< v3 0) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (let ((a!1 (and (>= (+ 0 (* v3 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the turn relation holds from the entry of `withdraw` to its return
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(declare-fun v3 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (let ((a!1 (ite (= (ite (< v1 v2) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (and (>= (+ 0 (* v3 1)) 0)))
(assert and)
(assert (let ((a!1 (ite (= (ite (< v3 0) 1 0) 0) 1 0)))
  (not (= a!1 0))))
(assert (not and))
(check-sat)
(pop 1)

; obligation 6: the invariant holds when `withdraw` returns
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (let ((a!1 (ite (= (ite (< v1 v2) 1 0) 0) 1 0)))
  (not (not (= a!1 0)))))
(assert (let ((a!1 (and (>= (+ 0 (* v1 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 7: the turn relation holds from the entry of `withdraw` to its return
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (let ((a!1 (ite (= (ite (< v1 v2) 1 0) 0) 1 0)))
  (not (not (= a!1 0)))))
(assert (not and))
(check-sat)
(pop 1)
