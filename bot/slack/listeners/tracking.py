"""The track form in Slack (from `/gpu-advise track` alone, or I rented this on a recommendation, pre-filled): its
check at the acknowledgement and its submission. The typed sub-command is the core's (bot/app/track.py).

The heartbeat token is shown once, ephemerally, to the person who submitted the form.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from slack_bolt import Ack

from bot.app.invocation import channel_zone
from bot.app.track import billed_since, cached_price, track_or_reissue, tracked_text
from bot.deps import Deps
from bot.slack.markup import in_slack
from bot.slack.replies import zone_for
from bot.slack.request import SlackRequest
from bot.slack.ui import track_form
from bot.state.rentals import RentalError, Rentals
from bot.text import Lang
from bot.text.catalogue import tw


def _read(deps: Deps, request: SlackRequest) -> tuple[dict[str, Any], dict[str, str]]:
    """The submitted modal, a typed start read on the submitter's Slack clock (else the channel's)."""

    def clock(channel: str) -> ZoneInfo:
        mine = zone_for(request.client, deps, request.user or "")
        return ZoneInfo(mine) if mine else channel_zone(deps, request.team, channel)

    return track_form.read(request.body["view"], deps.settings.files.currency, cached_price(deps), deps.now(), clock)


def check_track_form(deps: Deps, ack: Ack, request: SlackRequest) -> None:
    """The acknowledgement: an error under each wrong field (a taken name too), and the modal stays open."""
    fields, errors = _read(deps, request)
    if not errors and Rentals(deps.store).instance(request.team, fields["name"]) is not None:
        meta = track_form.TrackMeta.model_validate_json(request.body["view"].get("private_metadata") or "{}")
        errors["name"] = tw("error.rental.instance_exists", Lang(meta.lang), "form", name=fields["name"])
    if errors:
        if request.inbox_key:
            deps.inbox.done(request.inbox_key)
        ack(response_action="errors", errors=in_slack(errors))
    else:
        ack()


def on_track_form(deps: Deps, request: SlackRequest) -> None:
    """A valid track form: the instance is tracked; its token goes to the submitter only, once."""
    fields, errors = _read(deps, request)
    if errors:
        return
    source = fields.pop("price_source", None)
    meta = track_form.TrackMeta.model_validate_json(request.body["view"].get("private_metadata") or "{}")
    lang, user = Lang(meta.lang), request.user or ""
    name, zone = fields.pop("name"), fields.pop("started_zone")
    try:
        made, token, again = track_or_reissue(
            Rentals(deps.store), request.team, request.inbox_key, name, fields | {"owner": user}
        )
    except RentalError as exc:
        request.client.chat_postEphemeral(
            channel=meta.ch, user=user, text=tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)
        )
        return
    text = tracked_text(made, token, again, source, lang) + billed_since(made.started_at, zone, lang)
    request.client.chat_postEphemeral(channel=meta.ch, user=user, text=text)
