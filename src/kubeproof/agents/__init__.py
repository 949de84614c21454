"""Agents and the sandbox every agent command runs in."""
