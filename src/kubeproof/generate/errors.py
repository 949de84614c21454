"""The one error the generator raises: a request it cannot make a task for."""

from kubeproof.errors import KubeproofError


class GenerateError(KubeproofError):
    """An unknown suite, resource type, operation or task id."""
