"""Pure decision logic: the task profile, the policy, the engine and answer parsing.

Nothing in this package does I/O beyond reading the bundled policy file on request,
reads the clock, or knows about Slack or prices.
"""
