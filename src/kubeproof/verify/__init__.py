"""Verification: checks (did the outcome happen), contracts (was the task's shape
respected) and safety, each result with a reason a person can read. Verifiers run with
admin credentials the agent never sees."""

from kubeproof.verify.result import Result

__all__ = ["Result"]
