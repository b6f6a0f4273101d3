"""Prices: the sources (bundled rate card, Azure Retail Prices, generic feeds, exchange rates),
the SQLite price cache with its refresh runs, and the pure cost calculator."""
