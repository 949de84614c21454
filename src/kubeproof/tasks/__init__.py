"""Tasks: the format (model.py), finding and checking task directories (loader.py)."""

from kubeproof.tasks.loader import Problem, Task, TaskInvalid, discover, inspect, load
from kubeproof.tasks.model import TaskFile

__all__ = ["Problem", "Task", "TaskFile", "TaskInvalid", "discover", "inspect", "load"]
