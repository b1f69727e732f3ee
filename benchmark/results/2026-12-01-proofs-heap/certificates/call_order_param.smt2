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

; obligation 2: the turn relation holds of two turns in a row
(push 1)
(declare-fun s1_0 () Int)
(declare-fun s2_0 () Int)
(declare-fun s3_0 () Int)
(assert (>= (+ 0 (* s1_0 1)) 0))
(assert (>= (+ 0 (* s2_0 1)) 0))
(assert (>= s2_0 s1_0))
(assert (>= (+ 0 (* s3_0 1)) 0))
(assert (>= s3_0 s2_0))
(assert (not (and (>= s3_0 s1_0))))
(check-sat)
(pop 1)

; obligation 3: the invariant holds when `add` calls the client at /work/main/../shared/holik-bench/programs/call_order_param.holi:8:3
(push 1)
(declare-fun s4_0 () Int)
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (let ((a!1 (>= (+ 0 (* (+ s4_0 1) 1)) 0)))
  (not (and a!1))))
(check-sat)
(pop 1)

; obligation 4: the turn relation holds from the entry of `add` to its return
(push 1)
(declare-fun s4_0 () Int)
(declare-fun s5_0 () Int)
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s5_0 1)) 0))
(assert (>= s5_0 (+ s4_0 1)))
(assert (not (and (>= s5_0 s4_0))))
(check-sat)
(pop 1)
