"""Judge calibration: human labels of the model grader's verdicts, the grader's measured error
(TPR, TNR, κ) and pass rates corrected for it (Rogan–Gladen), bound to the grader's identity."""
