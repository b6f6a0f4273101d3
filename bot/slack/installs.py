"""Installing into many workspaces: slack_sdk's SQLAlchemy installation and OAuth state stores in the
bot's state database, with every token encrypted at rest (Fernet, GPU_ADVISOR_ENCRYPTION_KEY), and a
Web API client per workspace for work that starts outside a request (digests, redone work).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypeVar

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import Engine

from bot.settings import Settings
from bot.slack.client import YieldingClient
from bot.slack.ids import INSTALL_PATH, REDIRECT_PATH, SCOPES

TOKENS = ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token")
MARK = "enc1:"  # an encrypted value, so a value is never encrypted twice
Entity = TypeVar("Entity", Bot, Installation)


class BadEncryptionKey(ValueError):
    """GPU_ADVISOR_ENCRYPTION_KEY is not a Fernet key."""


def keys(key: str) -> list[Fernet]:
    """The keys of GPU_ADVISOR_ENCRYPTION_KEY: comma-separated, newest first, so a key can be rotated
    without losing installs."""
    try:
        found = [Fernet(part.strip().encode()) for part in key.split(",") if part.strip()]
    except (ValueError, TypeError):
        raise BadEncryptionKey("not a Fernet key (32 url-safe base64-encoded bytes)") from None
    if not found:
        raise BadEncryptionKey("not a Fernet key (32 url-safe base64-encoded bytes)")
    return found


def fernet(key: str) -> MultiFernet:
    """cryptography's MultiFernet over the keys: it encrypts with the newest and decrypts with any."""
    return MultiFernet(keys(key))


def check_and_rotate(engine: Engine, key: str) -> int:
    """At start-up: every stored token must open with the configured keys (BadEncryptionKey saying what to
    do otherwise), and one encrypted with an older key is encrypted again with the newest. Returns how
    many tokens were re-encrypted."""
    from sqlalchemy import select, update

    from bot.state.schema import migrated_metadata

    newest, box = keys(key)[0], fernet(key)
    tables = migrated_metadata().tables
    rotated = 0
    with engine.begin() as conn:
        for table in (tables["slack_installations"], tables["slack_bots"]):
            columns = [table.c[name] for name in TOKENS if name in table.c]
            for row in conn.execute(select(table.c.id, *columns)).all():
                changes = {}
                for column in columns:
                    value = row._mapping[column.name]
                    if not value or not str(value).startswith(MARK):
                        continue
                    sealed = str(value)[len(MARK) :].encode()
                    if _opens(newest, sealed):
                        continue
                    try:
                        changes[column.name] = MARK + box.rotate(sealed).decode()  # now under the newest key
                    except InvalidToken:
                        raise BadEncryptionKey("the stored tokens were encrypted with another key") from None
                if changes:
                    conn.execute(update(table).where(table.c.id == row.id).values(**changes))
                    rotated += len(changes)
    return rotated


def _opens(box: Fernet, sealed: bytes) -> bool:
    try:
        box.decrypt(sealed)
    except InvalidToken:
        return False
    return True


class EncryptedInstallationStore(SQLAlchemyInstallationStore):
    """slack_sdk's store; tokens go in encrypted and come out decrypted."""

    def __init__(self, client_id: str, engine: Engine, box: MultiFernet) -> None:
        super().__init__(client_id=client_id, engine=engine)
        self.box = box

    def _sealed(self, entity: Any) -> Any:
        out = copy.copy(entity)
        for name in TOKENS:
            value = getattr(out, name, None)
            if value and not str(value).startswith(MARK):
                setattr(out, name, MARK + self.box.encrypt(str(value).encode()).decode())
        return out

    def _opened(self, entity: Entity | None) -> Entity | None:
        if entity is None:
            return None
        for name in TOKENS:
            value = getattr(entity, name, None)
            if value and str(value).startswith(MARK):
                try:
                    setattr(entity, name, self.box.decrypt(str(value)[len(MARK) :].encode()).decode())
                except InvalidToken:
                    raise BadEncryptionKey("the stored tokens were encrypted with another key") from None
        return entity

    def save(self, installation: Installation) -> None:
        super().save(self._sealed(installation))

    def save_bot(self, bot: Bot) -> None:
        super().save_bot(self._sealed(bot))

    def find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
    ) -> Bot | None:
        return self._opened(
            super().find_bot(enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=is_enterprise_install)
        )

    def find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        return self._opened(
            super().find_installation(
                enterprise_id=enterprise_id,
                team_id=team_id,
                user_id=user_id,
                is_enterprise_install=is_enterprise_install,
            )
        )

    def forget(self, team_id: str) -> None:
        """The workspace uninstalled the app or revoked its tokens: its installations and bots go."""
        self.delete_installation(enterprise_id=None, team_id=team_id)
        self.delete_bot(enterprise_id=None, team_id=team_id)


def oauth_settings(settings: Settings, engine: Engine, installs: EncryptedInstallationStore) -> OAuthSettings:
    """The OAuth flow: the manifest's scopes, both stores in the state database."""
    client_id = settings.slack.client_id or ""
    secret = settings.slack.client_secret.get_secret_value() if settings.slack.client_secret else ""
    return OAuthSettings(
        client_id=client_id,
        client_secret=secret,
        scopes=sorted(SCOPES),
        redirect_uri=settings.slack.redirect_uri,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        installation_store=installs,
        state_store=SQLAlchemyOAuthStateStore(expiration_seconds=600, engine=engine),
    )


def installation_store(settings: Settings, engine: Engine) -> EncryptedInstallationStore:
    key = settings.slack.encryption_key.get_secret_value() if settings.slack.encryption_key else ""
    return EncryptedInstallationStore(settings.slack.client_id or "", engine, fernet(key))


class Installs:
    """The OAuth installs, as Deps needs them (the Installs of bot/deps.py): each workspace's client, made from its
    stored bot token with `template`'s base URL, retries and acknowledgement gate."""

    def __init__(self, store: EncryptedInstallationStore, template: WebClient) -> None:
        self.store = store
        self.client_for = client_factory(store, template)

    def forget(self, team: str) -> None:
        self.store.forget(team)


def workspace_client(settings: Settings, engine: Engine, team: str, template: WebClient) -> WebClient:
    """One workspace's client outside serve (`remind --now`): LookupError when it is not installed,
    BadEncryptionKey when the key cannot read its token."""
    return client_factory(installation_store(settings, engine), template)(team)


def client_factory(store: EncryptedInstallationStore, template: WebClient) -> Callable[[str], WebClient]:
    """A workspace's client (its bot token, the template's base URL and retries); LookupError when the
    workspace has no installation (it uninstalled the app)."""

    def client_for(team: str) -> WebClient:
        bot = store.find_bot(enterprise_id=None, team_id=team)
        if bot is None or not bot.bot_token:
            raise LookupError(f"no installation for workspace {team}")
        return YieldingClient(
            token=bot.bot_token,
            base_url=template.base_url,
            retry_handlers=template.retry_handlers,
            timeout=template.timeout,
            acks=getattr(template, "acks", None),
        )

    return client_for
