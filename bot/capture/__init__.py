"""Reading GPU captures (a probe CSV, nvidia-smi --query-gpu CSV, nvidia-smi dmon) into samples for
rules/capture.py, their errors (a line number and a code the catalogue words), and the chart."""
