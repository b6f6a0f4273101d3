"""What of lark-oapi a process that talks to Feishu loads (bot/feishu/sdk.py): the five Open API resources it calls
and their models, not the IM and contact services whole (issue 50: about 1,000 modules and 17 MB of each of serve's
processes, 370 modules and 10 MB now)."""

from __future__ import annotations

import pytest

from bot.feishu.sdk import RESOURCES, Models
from tests.support.imported import imported_by


@pytest.mark.e2e  # starts a process
def test_only_the_resources_called_and_their_models_are_loaded() -> None:
    probe = (
        "from bot.feishu.sdk import OpenApi\n"
        "api = OpenApi('cli_a', 'secret', 'http://127.0.0.1:9')\n"
        "api.sdk.im.CreateMessageRequest.builder().receive_id_type('chat_id').build()\n"
    )
    loaded = set(imported_by(probe, "lark_oapi.api")[0])
    resources = {m.rsplit(".", 1)[1] for m in loaded if ".resource." in m}
    assert resources == {name for names in RESOURCES.values() for name in names}
    assert "lark_oapi.api.im.v1.version" not in loaded and "lark_oapi.api.im.v2" not in loaded  # no whole service
    assert "lark_oapi.api.im.v1.model.pin" not in loaded  # a model of a resource never called
    assert len(loaded) < 250, len(loaded)  # about 1,000 with the services whole


def test_a_model_is_found_by_its_class_name_and_kept() -> None:
    im = Models("lark_oapi.api.im.v1")
    body = im.PatchMessageRequestBody
    assert body.__name__ == "PatchMessageRequestBody" and im.PatchMessageRequestBody is body
    with pytest.raises(AttributeError, match="no model NoSuchRequest"):
        im.NoSuchRequest  # noqa: B018 (the attribute's import is what is tested)
    assert getattr(im, "__deepcopy__", None) is None  # a protocol's probe finds nothing, as on any object
