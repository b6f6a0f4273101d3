"""What Slack shows: Block Kit messages, forms and the App Home, each kind built from a jinja2 template
(templates/, rendered and validated by templating.py) by a small builder that computes what it shows."""
