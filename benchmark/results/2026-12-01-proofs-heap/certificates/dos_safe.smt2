; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: currentbid ≥ 100
; invariant: currentbid ≥ 0
; turn relation: currentbid′ ≥ currentbid

; obligation 1: the initial store satisfies the invariant
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 100 1)) 100) (>= (+ 0 (* 100 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the turn relation holds of two turns in a row
(push 1)
(declare-fun s1_0 () Int)
(declare-fun s2_0 () Int)
(declare-fun s3_0 () Int)
(assert (>= (+ 0 (* s1_0 1)) 100))
(assert (>= (+ 0 (* s1_0 1)) 0))
(assert (>= (+ 0 (* s2_0 1)) 100))
(assert (>= (+ 0 (* s2_0 1)) 0))
(assert (>= s2_0 s1_0))
(assert (>= (+ 0 (* s3_0 1)) 100))
(assert (>= (+ 0 (* s3_0 1)) 0))
(assert (>= s3_0 s2_0))
(assert (not (and (>= s3_0 s1_0))))
(check-sat)
(pop 1)

; obligation 3: the assert at /work/main/../shared/holik-bench/programs/dos_safe.holi:8:8 holds
(push 1)
(declare-fun s4_0 () Int)
(declare-fun s5_0 () Int)
(declare-fun v1 () Int)
(assert (>= (+ 0 (* s4_0 1)) 100))
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s5_0 1)) 100))
(assert (>= (+ 0 (* s5_0 1)) 0))
(assert (>= s5_0 s4_0))
(assert (not (= (ite (< s4_0 v1) 1 0) 0)))
(assert (let ((a!1 (not (= (ite (= v1 v1) 1 0) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `bid` returns
(push 1)
(declare-fun s4_0 () Int)
(declare-fun s5_0 () Int)
(declare-fun v1 () Int)
(assert (>= (+ 0 (* s4_0 1)) 100))
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s5_0 1)) 100))
(assert (>= (+ 0 (* s5_0 1)) 0))
(assert (>= s5_0 s4_0))
(assert (not (= (ite (< s4_0 v1) 1 0) 0)))
(assert (not (= (ite (= v1 v1) 1 0) 0)))
(assert (let ((a!1 (and (>= (+ 0 (* v1 1)) 100) (>= (+ 0 (* v1 1)) 0))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the turn relation holds from the entry of `bid` to its return
(push 1)
(declare-fun s4_0 () Int)
(declare-fun s5_0 () Int)
(declare-fun v1 () Int)
(assert (>= (+ 0 (* s4_0 1)) 100))
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s5_0 1)) 100))
(assert (>= (+ 0 (* s5_0 1)) 0))
(assert (>= s5_0 s4_0))
(assert (not (= (ite (< s4_0 v1) 1 0) 0)))
(assert (not (= (ite (= v1 v1) 1 0) 0)))
(assert (not (and (>= v1 s4_0))))
(check-sat)
(pop 1)
