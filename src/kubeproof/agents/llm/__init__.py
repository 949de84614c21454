"""Model-driven agents: a small tool-use loop over chat APIs (any OpenAI-compatible endpoint,
and Anthropic), with budgets, retries and per-call accounting."""
