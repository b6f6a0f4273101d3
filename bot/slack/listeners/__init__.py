"""Slack listeners as plain functions `handler(deps, request)`, one module per kind; routes.py wires them."""
