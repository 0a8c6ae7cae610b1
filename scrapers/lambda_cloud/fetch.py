"""Lambda's live requests, no pagination on either:

- ``GET https://lambda.ai/pricing`` (HTML, no auth): always fetched.
- ``GET https://cloud.lambdalabs.com/api/v1/instance-types`` (JSON, HTTP Basic auth with the API
  key as user name, per https://docs-api.lambda.ai/api/cloud#listInstanceTypes): fetched only
  when ``LAMBDA_API_KEY`` is set. Its offers are a second source beside the page's; they carry
  Lambda's API names (``gpu_8x_h100_sxm5``), so they never collide with the page's offers.
"""

from __future__ import annotations

import base64

import httpx

from scrapers import http
from scrapers.kit import RawResponse
from scrapers.lambda_cloud.common import API_URL, PRICING_URL

TOKEN_ENV = "LAMBDA_API_KEY"


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Fetch the pricing page and, when ``token`` (a Lambda Cloud API key) is set, the API's
    instance types. No pagination on either. Raises ``FetchError`` (via ``scrapers.http``) when
    a source fails after retries; a rejected API key is an HTTP 401 ``FetchError``."""
    responses = [http.get(client, PRICING_URL)]
    if token:
        responses.append(http.get(client, API_URL, headers={"Authorization": _basic_auth(token)}))
    return responses


def _basic_auth(token: str) -> str:
    """HTTP Basic credentials with the API key as user name and an empty password."""
    return "Basic " + base64.b64encode(f"{token}:".encode()).decode("ascii")
