"""The fields users type, one table each: the profile's answers (answers.py) and a rental's fields (rentals.py),
with their parsers, shared by the terminal, the Slack thread, the forms and the inline keys."""
