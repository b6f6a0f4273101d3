"""Warn, then act on idle instances: the digest's warnings (warn.py), the job that judges each warning again
at its deadline and stops what is still idle (due.py), and how each kind of item is stopped (stop.py)."""
