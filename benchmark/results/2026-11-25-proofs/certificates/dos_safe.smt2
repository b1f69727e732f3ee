; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: currentbid ≥ 100
; invariant: currentbid ≥ 0
; turn relation: while currentbid = 0, currentbid′ = currentbid
; turn relation: currentbid′ ≥ currentbid

; obligation 1: the initial store satisfies the invariant
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 100 1)) 100) (>= (+ 0 (* 100 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the turn relation holds of a turn that changes nothing
(push 1)
(declare-fun v1 () Int)
(assert (and (>= (+ 0 (* v1 1)) 100) (>= (+ 0 (* v1 1)) 0)))
(assert (not (and (=> (= v1 0) (= v1 v1)) (>= v1 v1))))
(check-sat)
(pop 1)

; obligation 3: the turn relation holds of two turns in a row
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(declare-fun v3 () Int)
(assert (and (>= (+ 0 (* v1 1)) 100) (>= (+ 0 (* v1 1)) 0)))
(assert (and (>= (+ 0 (* v2 1)) 100) (>= (+ 0 (* v2 1)) 0)))
(assert (and (=> (= v1 0) (= v2 v1)) (>= v2 v1)))
(assert (and (>= (+ 0 (* v3 1)) 100) (>= (+ 0 (* v3 1)) 0)))
(assert (and (=> (= v2 0) (= v3 v2)) (>= v3 v2)))
(assert (not (and (=> (= v1 0) (= v3 v1)) (>= v3 v1))))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `bid` calls the client at /work/wt/proof/../shared/holik-bench/programs/dos_safe.holi:6:8
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(assert (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0)))
(assert (not (= (ite (< v4 v5) 1 0) 0)))
(assert (let ((a!1 (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the assert at /work/wt/proof/../shared/holik-bench/programs/dos_safe.holi:8:8 holds
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0)))
(assert (not (= (ite (< v4 v5) 1 0) 0)))
(assert (and (>= (+ 0 (* v6 1)) 100) (>= (+ 0 (* v6 1)) 0)))
(assert (and (=> (= v4 0) (= v6 v4)) (>= v6 v4)))
(assert (let ((a!1 (not (= (ite (= v5 v5) 1 0) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 6: the invariant holds when `bid` returns
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0)))
(assert (not (= (ite (< v4 v5) 1 0) 0)))
(assert (and (>= (+ 0 (* v6 1)) 100) (>= (+ 0 (* v6 1)) 0)))
(assert (and (=> (= v4 0) (= v6 v4)) (>= v6 v4)))
(assert (not (= (ite (= v5 v5) 1 0) 0)))
(assert (let ((a!1 (and (>= (+ 0 (* v5 1)) 100) (>= (+ 0 (* v5 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 7: the turn relation holds from the entry of `bid` to its return
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0)))
(assert (not (= (ite (< v4 v5) 1 0) 0)))
(assert (and (>= (+ 0 (* v6 1)) 100) (>= (+ 0 (* v6 1)) 0)))
(assert (and (=> (= v4 0) (= v6 v4)) (>= v6 v4)))
(assert (not (= (ite (= v5 v5) 1 0) 0)))
(assert (not (and (=> (= v4 0) (= v5 v4)) (>= v5 v4))))
(check-sat)
(pop 1)

; obligation 8: the invariant holds when `bid` returns
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(assert (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0)))
(assert (let ((a!1 (not (= (ite (< v4 v5) 1 0) 0))))
  (not a!1)))
(assert (let ((a!1 (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 9: the turn relation holds from the entry of `bid` to its return
(push 1)
(declare-fun v4 () Int)
(declare-fun v5 () Int)
(assert (and (>= (+ 0 (* v4 1)) 100) (>= (+ 0 (* v4 1)) 0)))
(assert (let ((a!1 (not (= (ite (< v4 v5) 1 0) 0))))
  (not a!1)))
(assert (not (and (=> (= v4 0) (= v4 v4)) (>= v4 v4))))
(check-sat)
(pop 1)
