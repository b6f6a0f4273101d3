"""The daily digest: what each channel is told (composed from the state and rules/digest.py) and its
sending, once a channel a local day (send.py, due.py). How it looks in Slack is bot/slack/ui/digest.py,
passed in as `render`: this package imports nothing from bot/slack/."""
