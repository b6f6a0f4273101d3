"""A box released (or storage deleted) frees its name for the next one rented: `track 训练机` after `release 训练机`
was refused as "already tracked". A name is unique among the instances not released and the storage not deleted
(partial unique indexes) instead of among every row the team ever had; the released rows keep their names and
their money.

Going back makes every name unique again: a released row that shares its name with another row is renamed
`NAME~ID` (its id keeps it apart) before the unique constraint is put back.

Revision ID: 0036
Revises: 0035
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None

# (table, its unique constraint's and index's name, the column that says a row is gone)
TABLES = (
    ("rental_instances", "uq_rental_instances_team_name", "released_at"),
    ("rental_storage", "uq_rental_storage_team_name", "deleted_at"),
)


def upgrade() -> None:
    for table, name, gone in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(name, type_="unique")
        where = sa.text(f"{gone} IS NULL")
        op.create_index(name, table, ["team", "name"], unique=True, sqlite_where=where, postgresql_where=where)


def downgrade() -> None:
    for table, name, gone in TABLES:
        op.execute(
            f"UPDATE {table} SET name = name || '~' || CAST(id AS VARCHAR(20)) "
            f"WHERE {gone} IS NOT NULL AND EXISTS (SELECT 1 FROM {table} other "
            f"WHERE other.team = {table}.team AND other.name = {table}.name AND other.id <> {table}.id)"
        )
        op.drop_index(name, table_name=table)
        with op.batch_alter_table(table) as batch:
            batch.create_unique_constraint(name, ["team", "name"])
