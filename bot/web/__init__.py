"""What every front door over HTTP shares, whichever chat it serves: reading a body within its deadline and
size, and answering (bot/server/ serves them; each chat's wing builds its endpoint on these)."""
