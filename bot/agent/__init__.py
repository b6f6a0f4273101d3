"""The agent on a rented GPU machine: samples its GPUs and posts them to the bot's /api/heartbeat."""
