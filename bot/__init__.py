"""Everything that talks to people: the Slack app, its conversation and templates, and the CLI."""
