"""Who wastes what: a period's report from the rented things and their samples (compose.py), its chart
(chart.py), and its exports (the terminal's JSON and CSV, bot/cli/report.py)."""
