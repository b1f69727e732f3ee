; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: x ≥ 0
; turn relation: while x = 1, x′ = x
; turn relation: x′ = x or x′ = 1

; obligation 1: the initial store satisfies the invariant
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the turn relation holds of a turn that changes nothing
(push 1)
(declare-fun v1 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (not (and (=> (= v1 1) (= v1 v1)) (or (= v1 v1) (= v1 1)))))
(check-sat)
(pop 1)

; obligation 3: the turn relation holds of two turns in a row
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(declare-fun v3 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (and (>= (+ 0 (* v2 1)) 0)))
(assert (and (=> (= v1 1) (= v2 v1)) (or (= v2 v1) (= v2 1))))
(assert (and (>= (+ 0 (* v3 1)) 0)))
(assert (and (=> (= v2 1) (= v3 v2)) (or (= v3 v2) (= v3 1))))
(assert (not (and (=> (= v1 1) (= v3 v1)) (or (= v3 v1) (= v3 1)))))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `run` calls the client at /work/wt/proof/../shared/holik-bench/programs/awkward_safe.holi:5:47
(push 1)
(declare-fun v4 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the invariant holds when `run` calls the client at /work/wt/proof/../shared/holik-bench/programs/awkward_safe.holi:5:60
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (and (>= (+ 0 (* v5 1)) 0)))
(assert (and (=> (= 0 1) (= v5 0)) (or (= v5 0) (= v5 1))))
(assert (let ((a!1 (and (>= (+ 0 (* 1 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 6: the assert at /work/wt/proof/../shared/holik-bench/programs/awkward_safe.holi:5:65 holds
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (and (>= (+ 0 (* v5 1)) 0)))
(assert (and (=> (= 0 1) (= v5 0)) (or (= v5 0) (= v5 1))))
(assert (and (>= (+ 0 (* v6 1)) 0)))
(assert (and (=> (= 1 1) (= v6 1)) (or (= v6 1) (= v6 1))))
(assert (let ((a!1 (not (= (ite (= v6 1) 1 0) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 7: the invariant holds when `run` returns
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (and (>= (+ 0 (* v5 1)) 0)))
(assert (and (=> (= 0 1) (= v5 0)) (or (= v5 0) (= v5 1))))
(assert (and (>= (+ 0 (* v6 1)) 0)))
(assert (and (=> (= 1 1) (= v6 1)) (or (= v6 1) (= v6 1))))
(assert (not (= (ite (= v6 1) 1 0) 0)))
(assert (let ((a!1 (and (>= (+ 0 (* v6 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 8: the turn relation holds from the entry of `run` to its return
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (and (>= (+ 0 (* v5 1)) 0)))
(assert (and (=> (= 0 1) (= v5 0)) (or (= v5 0) (= v5 1))))
(assert (and (>= (+ 0 (* v6 1)) 0)))
(assert (and (=> (= 1 1) (= v6 1)) (or (= v6 1) (= v6 1))))
(assert (not (= (ite (= v6 1) 1 0) 0)))
(assert (not (and (=> (= v4 1) (= v6 v4)) (or (= v6 v4) (= v6 1)))))
(check-sat)
(pop 1)
