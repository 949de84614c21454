"""Verification: checks (did the outcome happen), contracts (was the task's shape
respected) and safety, each result with a reason a person can read. Verifiers run with
admin credentials the agent never sees. Task files import the decorators from here to
define their own checks and contracts."""

from kubeproof.verify.registry import Context, check, contract
from kubeproof.verify.result import Result

__all__ = ["Context", "Result", "check", "contract"]
