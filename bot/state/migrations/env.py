"""Alembic's environment: run the migrations on the connection bot/state/migrate.py hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from bot.state.schema import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # `alembic` run by hand: -x url=sqlite:///state.db
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///path/to/state.db ...")
    connection = create_engine(url).connect()

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
