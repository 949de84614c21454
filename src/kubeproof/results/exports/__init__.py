"""A run in the formats other tools read: an Inspect AI log per agent (`inspect view`
shows kubeproof runs), each trajectory in Harbor's ATIF, and chat-format JSONL of resolved
trajectories for fine-tuning. Everything is read from the run directory with
`kubeproof.results.load` (no symlinks, size limits, strict JSON): a trial directory holds
what an agent wrote."""

from kubeproof.results.exports.atif import trajectory as atif_trajectory
from kubeproof.results.exports.atif import write_run as write_atif
from kubeproof.results.exports.inspect_log import write_run as write_inspect
from kubeproof.results.exports.sft import write_run as write_sft

__all__ = ["atif_trajectory", "write_atif", "write_inspect", "write_sft"]
