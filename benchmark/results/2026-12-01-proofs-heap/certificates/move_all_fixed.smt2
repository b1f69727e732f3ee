; A proof of safety for every k and l, written by holi's proof checker
; (lang/proofs.md). Each obligation below is one query: its path condition
; and the negation of what must hold. Every (check-sat) must answer unsat.

; obligation 1: the assert at /work/main/examples/move_all_fixed.holi:13:6 holds
(push 1)
(declare-fun s1_0_2 () Int)
(declare-fun s1_0_1 () Int)
(assert (not (not (= 0 0))))
(assert (let ((a!1 (= (ite (= (+ 0 s1_0_2 s1_0_1) (+ s1_0_1 s1_0_2)) 1 0) 0)))
  (not (not a!1))))
(check-sat)
(pop 1)
