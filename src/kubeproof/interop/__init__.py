"""Bringing other benchmarks' tasks into kubeproof (docs/interop.md)."""
