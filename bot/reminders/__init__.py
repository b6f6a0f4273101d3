"""The daily reminders: the digest rendered for Slack (blocks.py), sent once a channel a day (send.py)."""
