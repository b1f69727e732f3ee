; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: a ≥ 0
; turn relation: a′ ≥ a

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
(assert (not (and (>= v1 v1))))
(check-sat)
(pop 1)

; obligation 3: the turn relation holds of two turns in a row
(push 1)
(declare-fun v1 () Int)
(declare-fun v2 () Int)
(declare-fun v3 () Int)
(assert (and (>= (+ 0 (* v1 1)) 0)))
(assert (and (>= (+ 0 (* v2 1)) 0)))
(assert (and (>= v2 v1)))
(assert (and (>= (+ 0 (* v3 1)) 0)))
(assert (and (>= v3 v2)))
(assert (not (and (>= v3 v1))))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `add` calls the client at /work/wt/proof/../shared/holik-bench/programs/call_order_param.holi:8:3
(push 1)
(declare-fun v4 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (let ((a!1 (>= (+ 0 (* (+ v4 1) 1)) 0)))
  (not (and a!1))))
(check-sat)
(pop 1)

; obligation 5: the invariant holds when `add` returns
(push 1)
(declare-fun v4 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (and (>= (+ 0 (* v6 1)) 0)))
(assert (and (>= v6 (+ v4 1))))
(assert (let ((a!1 (and (>= (+ 0 (* v6 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 6: the turn relation holds from the entry of `add` to its return
(push 1)
(declare-fun v4 () Int)
(declare-fun v6 () Int)
(assert (and (>= (+ 0 (* v4 1)) 0)))
(assert (and (>= (+ 0 (* v6 1)) 0)))
(assert (and (>= v6 (+ v4 1))))
(assert (not (and (>= v6 v4))))
(check-sat)
(pop 1)
