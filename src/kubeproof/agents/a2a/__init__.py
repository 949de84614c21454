"""Agents that speak A2A (`a2a:URL`), as AgentBeats runs them: the harness sends the task as
an A2A message, runs the commands the agent's reply holds in the trial's sandbox and answers
with what they did (docs/agents.md, "A2A agents"). Only config.py is imported without the
`a2a` extra."""
