; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: lock ≥ 0
; invariant: lock ≤ 1
; turn relation: while lock = 0, lock′ = lock
; turn relation: while lock > 0, lock′ = lock
; turn relation: lock′ = lock or lock′ = 0
; turn relation: lock′ = lock or lock′ = 1
; turn relation: lock′ ≥ lock
; turn relation: lock′ ≤ lock

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
(assert (=> (= s1_0 0) (= s2_0 s1_0)))
(assert (=> (> s1_0 0) (= s2_0 s1_0)))
(assert (or (= s2_0 s1_0) (= s2_0 0)))
(assert (or (= s2_0 s1_0) (= s2_0 1)))
(assert (>= s2_0 s1_0))
(assert (<= s2_0 s1_0))
(assert (>= (+ 0 (* s3_0 1)) 0))
(assert (>= (+ 0 (* s3_0 (- 1))) (- 1)))
(assert (=> (= s2_0 0) (= s3_0 s2_0)))
(assert (=> (> s2_0 0) (= s3_0 s2_0)))
(assert (or (= s3_0 s2_0) (= s3_0 0)))
(assert (or (= s3_0 s2_0) (= s3_0 1)))
(assert (>= s3_0 s2_0))
(assert (<= s3_0 s2_0))
(assert (not (and (=> (= s1_0 0) (= s3_0 s1_0))
          (=> (> s1_0 0) (= s3_0 s1_0))
          (or (= s3_0 s1_0) (= s3_0 0))
          (or (= s3_0 s1_0) (= s3_0 1))
          (>= s3_0 s1_0)
          (<= s3_0 s1_0))))
(check-sat)
(pop 1)

; obligation 3: the invariant holds when `openFile` calls the client at /work/main/examples/file_lock_fixed.holi:17:7
(push 1)
(declare-fun s4_0 () Int)
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s4_0 (- 1))) (- 1)))
(assert (not (not (= s4_0 0))))
(assert (let ((a!1 (and (>= (+ 0 (* 1 1)) 0) (>= (+ 0 (* 1 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `openFile` returns
(push 1)
(declare-fun s4_0 () Int)
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s4_0 (- 1))) (- 1)))
(assert (not (not (= s4_0 0))))
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the turn relation holds from the entry of `openFile` to its return
(push 1)
(declare-fun s4_0 () Int)
(assert (>= (+ 0 (* s4_0 1)) 0))
(assert (>= (+ 0 (* s4_0 (- 1))) (- 1)))
(assert (not (not (= s4_0 0))))
(assert (not (and (=> (= s4_0 0) (= 0 s4_0))
          (=> (> s4_0 0) (= 0 s4_0))
          (or (= 0 s4_0) (= 0 0))
          (or (= 0 s4_0) (= 0 1))
          (>= 0 s4_0)
          (<= 0 s4_0))))
(check-sat)
(pop 1)

; obligation 6: the assert at /work/main/examples/file_lock_fixed.holi:9:41 holds
(push 1)
(declare-fun s6_0 () Int)
(assert (>= (+ 0 (* s6_0 1)) 0))
(assert (>= (+ 0 (* s6_0 (- 1))) (- 1)))
(assert (not (= s6_0 0)))
(assert (not (not (= s6_0 0))))
(check-sat)
(pop 1)
