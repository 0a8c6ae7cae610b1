"""Provider credentials on the ingest side: reading tokens, and scrubbing them from what is kept.

Tokens are stripped of surrounding whitespace when read (a Windows env file's ``\\r``); one with
a control or non-ASCII character inside fails with a line naming the variable, never its value.
Archived bodies and stored error messages pass through one ``Scrubber`` per scrape.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping

import httpx

from scrapers import http as scraper_http
from scrapers.base import FetchError, Provider
from scrapers.replay import REPLAY_TOKEN


class Scrubber:
    """Replaces the credentials of one scrape (the provider token, its ``id:secret`` parts, and
    whatever the requests carried) in archived bodies and stored error messages, in every form a
    server or an exception may print them (``scrapers.http.credential_forms``: as is, stripped,
    Python-, JSON- or URL-escaped, base64; any case). ``text`` is the one sanitiser of stored
    errors."""

    MIN_LENGTH = 6  # shorter "secrets" would also erase ordinary text

    def __init__(self, token: str | None, requests: list[httpx.Request]) -> None:
        found = {token, *(token or "").split(":")}
        for request in requests:
            found |= scraper_http.request_credentials(request)
        bare = {s for s in found if s and len(s.strip()) >= self.MIN_LENGTH}
        self.raw_secrets = bare
        self.secrets = sorted(
            {
                f
                for s in bare
                for f in scraper_http.credential_forms(s)
                if len(f) >= self.MIN_LENGTH
            },
            key=len,
            reverse=True,
        )

    def body(self, content: bytes) -> bytes:
        if not self.secrets:
            return content
        # case-insensitive: a server may print a key upper-cased
        pattern = re.compile(b"|".join(re.escape(s.encode()) for s in self.secrets), re.IGNORECASE)
        return pattern.sub(scraper_http.REDACTED.encode(), content)

    def text(self, text: str) -> str:
        text = scraper_http.scrub_error_text(text, self.raw_secrets)
        if not self.secrets:
            return text
        return scraper_http.secrets_pattern(self.secrets).sub(scraper_http.REDACTED, text)


def archivable_body(response: httpx.Response, scrub: Scrubber) -> bytes:
    """The body to archive: never one that carries credentials (e.g. an OAuth token response),
    and never a credential a server echoed back (an error page quoting the key)."""
    if scraper_http.is_sensitive(response.request):
        return b"[body not archived: credential exchange]"
    return scrub.body(response.content)


def replay_token(provider: Provider) -> str | None:
    """Replay: a placeholder where fetch insists on a token, else none (optional APIs stay off,
    so a replay answers the same requests the capture was made with)."""
    return REPLAY_TOKEN if provider.token_required else None


class TokenError(FetchError):
    """A provider token that cannot be sent (a control or non-ASCII character inside it)."""


def token_for(provider: Provider, env: Mapping[str, str] = os.environ) -> str | None:
    """The provider's token from its variable, without surrounding whitespace (Windows env files
    and Kubernetes secret files end it with ``\\r`` or ``\\n``); None when unset or blank.

    Raises ``TokenError`` naming the variable, never the value, when a character inside the
    token could not go into an HTTP header (a control or non-ASCII character)."""
    if not provider.token_env:
        return None
    token = (env.get(provider.token_env) or "").strip()
    if not token:
        return None
    for position, char in enumerate(token, start=1):
        if not (" " <= char <= "~"):
            kind = "control" if unicodedata.category(char).startswith("C") else "non-ASCII"
            raise TokenError(
                f"{provider.token_env} holds a {kind} character (at position {position}), which"
                " cannot be sent in an HTTP header; the token was not used (fix the variable)"
            )
    return token
