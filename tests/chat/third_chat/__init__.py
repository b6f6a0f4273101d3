"""A third chat, written here and nowhere else: the proof that a chat is a folder on the one core."""
