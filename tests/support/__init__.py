"""Helpers the tests share: the CLI run in process (cli.py) or as a process, the local fake Slack Web API
(fake_slack.py), the app served against it (slack_harness.py), throwaway PostgreSQL schemas (postgres.py),
serve processes (processes.py), local HTTP servers (servers.py) and the bundled data (bundled.py)."""
