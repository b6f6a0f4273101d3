"""Feishu's words for what the catalogue says Slack's way: a Slack workspace is a Feishu tenant (企业), a channel
is a group chat (群), a workspace admin is a tenant administrator or the chat's owner or a manager, and a
`/gpu-advise …` command is typed to the bot as it is. The catalogue keeps one sentence a key for every chat; this
wing says them in its own words as it renders them, by whole phrases only (item and project names are letters,
digits, ".", "-" and "_", so no name is ever changed)."""

from __future__ import annotations

from bot.text.rewording import rewording

# longest first, so "a workspace admin" is said before "workspace"
_PHRASES = (
    ("a workspace admin", "an admin (a tenant administrator, or this chat's owner or a manager)"),
    ("workspace admins", "admins (tenant administrators, or this chat's owner and managers)"),
    ("across the workspace", "across the tenant"),
    ("people of this workspace", "people of this tenant"),
    ("in this workspace", "in this tenant"),
    ("in the workspace", "in the tenant"),
    ("this workspace", "this tenant"),
    ("This channel", "This chat"),
    ("this channel", "this chat"),
    ("工作区管理员", "管理员（企业管理员、群主或群管理员）"),
    ("本工作区", "本企业"),
    ("整个工作区", "整个企业"),
    ("工作区内", "企业内"),
    ("本频道", "本群"),
    ("此频道", "此群"),
)
said_in_feishu = rewording(_PHRASES)
