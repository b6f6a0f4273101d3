"""The bot's state: SQLAlchemy Core tables, Alembic migrations, and the Store that reads and writes them."""

from bot.state.store import Conversation, Store, StoreBusy, StoreUnavailable

__all__ = ["Conversation", "Store", "StoreBusy", "StoreUnavailable"]
