"""The bot's state: SQLAlchemy Core tables, Alembic migrations, the Store (engine and transactions) and one
repository per concern beside it. All of the bot's SQL lives in this package."""

from bot.state.conversations import Conversation, Conversations
from bot.state.inbox import Inbox
from bot.state.store import Store, StoreBusy, StoreUnavailable
from bot.state.users import Users

__all__ = ["Conversation", "Conversations", "Inbox", "Store", "StoreBusy", "StoreUnavailable", "Users"]
