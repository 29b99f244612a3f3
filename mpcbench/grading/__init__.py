"""Grading answers: scores and failure causes (`scoring`), and feedback after a wrong answer (`feedback`)."""
