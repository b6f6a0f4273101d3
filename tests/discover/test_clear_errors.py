"""Issue 53.16: refusals said as what they are. EC2 refusing StopInstances (UnauthorizedOperation) named the scan's
permissions (DescribeInstances, CloudWatch) instead of ec2:StopInstances; an AutoDL token of spaces was said as
"AutoDL unreachable: LocalProtocolError" instead of a malformed token."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs

import httpx
import pytest

from bot.discover.autodl import AutoDL
from bot.discover.cloud import CloudError
from bot.tls import shared_context
from tests.support.aws import FAKE_ENV
from tests.support.servers import running

DENIED = (
    '<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>UnauthorizedOperation</Code>'
    "<Message>You are not authorized to perform this operation.</Message></Error></Errors>"
    "<RequestID>4f3a2e1d-0000-0000-0000-000000000000</RequestID></Response>"
)


class Ec2Refusing(BaseHTTPRequestHandler):
    """EC2's query API, refusing StopInstances as EC2 does to a policy without ec2:StopInstances (HTTP 403)."""

    def do_POST(self) -> None:
        form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
        assert form["Action"] == ["StopInstances"], form
        body = DENIED.encode()
        self.send_response(403)
        self.send_header("Content-Type", "text/xml;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


def test_a_refused_stop_names_ec2_stop_instances(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.discover.aws import Aws  # boto3 is imported by the tests that use it, not at collection

    for name, value in FAKE_ENV.items():
        monkeypatch.setenv(name, value)
    with running(Ec2Refusing) as url, pytest.raises(CloudError) as refused:
        Aws(("us-east-1",), url).stop("us-east-1", "i-0abc1234def567890")
    said = str(refused.value)
    assert "UnauthorizedOperation" in said and "ec2:StopInstances" in said and "cloudwatch" not in said


@pytest.mark.parametrize("token", ["   ", "tok en", "tok\nen"])
def test_a_malformed_autodl_token_is_said_as_malformed(token: str) -> None:
    with httpx.Client(verify=shared_context()) as client, pytest.raises(CloudError) as refused:
        AutoDL("http://127.0.0.1:9", token, client).balance()  # nothing is sent: port 9 is never asked
    said = str(refused.value)
    assert "malformed" in said and "GPU_ADVISOR_AUTODL_TOKEN" in said and "LocalProtocolError" not in said
