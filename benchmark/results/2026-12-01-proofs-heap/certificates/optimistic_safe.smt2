; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.
; invariant: access_granted ≥ 0
; invariant: access_granted ≤ 1

; obligation 1: the initial store satisfies the invariant
(push 1)
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 2: the assert at /work/main/../shared/holik-bench/programs/optimistic_safe.holi:11:3 holds
(push 1)
(declare-fun v1 () Int)
(assert (not (= v1 0)))
(assert (let ((a!1 (ite (and (not (= v1 0)) (not (= 1 0))) 1 0))
      (a!2 (not (= (ite (= v1 0) 1 0) 0)))
      (a!3 (not (= (ite (= 1 0) 1 0) 0))))
(let ((a!4 (not (= (ite (and a!2 a!3) 1 0) 0))))
(let ((a!5 (ite (or (not (= a!1 0)) a!4) 1 0)))
  (not (not (= a!5 0)))))))
(check-sat)
(pop 1)

; obligation 3: the assert at /work/main/../shared/holik-bench/programs/optimistic_safe.holi:11:3 holds
(push 1)
(declare-fun v1 () Int)
(assert (not (not (= v1 0))))
(assert (let ((a!1 (ite (and (not (= v1 0)) (not (= 0 0))) 1 0))
      (a!2 (not (= (ite (= v1 0) 1 0) 0)))
      (a!3 (not (= (ite (= 0 0) 1 0) 0))))
(let ((a!4 (not (= (ite (and a!2 a!3) 1 0) 0))))
(let ((a!5 (ite (or (not (= a!1 0)) a!4) 1 0)))
  (not (not (= a!5 0)))))))
(check-sat)
(pop 1)

; obligation 4: the invariant holds when `check_access` returns
(push 1)
(declare-fun v1 () Int)
(assert (not (= v1 0)))
(assert (let ((a!1 (ite (and (not (= v1 0)) (not (= 1 0))) 1 0))
      (a!2 (not (= (ite (= v1 0) 1 0) 0)))
      (a!3 (not (= (ite (= 1 0) 1 0) 0))))
(let ((a!4 (not (= (ite (and a!2 a!3) 1 0) 0))))
(let ((a!5 (ite (or (not (= a!1 0)) a!4) 1 0)))
  (not (= a!5 0))))))
(assert (let ((a!1 (and (>= (+ 0 (* 1 1)) 0) (>= (+ 0 (* 1 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)

; obligation 5: the invariant holds when `check_access` returns
(push 1)
(declare-fun v1 () Int)
(assert (not (not (= v1 0))))
(assert (let ((a!1 (ite (and (not (= v1 0)) (not (= 0 0))) 1 0))
      (a!2 (not (= (ite (= v1 0) 1 0) 0)))
      (a!3 (not (= (ite (= 0 0) 1 0) 0))))
(let ((a!4 (not (= (ite (and a!2 a!3) 1 0) 0))))
(let ((a!5 (ite (or (not (= a!1 0)) a!4) 1 0)))
  (not (= a!5 0))))))
(assert (let ((a!1 (and (>= (+ 0 (* 0 1)) 0) (>= (+ 0 (* 0 (- 1))) (- 1)))))
  (not a!1)))
(check-sat)
(pop 1)
