"""What `gpu-advise serve` is: start-up (run.py), the HTTP front door (http.py, verify.py), health,
the two ways samples come in (heartbeat.py from agents, prometheus.py from a team's Prometheus) and
the table of scheduled jobs (jobs.py). Nothing under bot/slack/ imports this package."""

from bot.web.lean_imports import skip_unused_clis

skip_unused_clis()  # before anything of serve imports httpx, in the front door and in its work process
