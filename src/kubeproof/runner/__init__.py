"""Trials: bring a task up on a cluster, let an agent work, judge, record."""
