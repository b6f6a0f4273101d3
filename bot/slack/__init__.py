"""The Slack wing: the bolt app, its listeners (one table in routes.py), the conversation and its views."""
