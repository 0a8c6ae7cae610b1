"""One ``Vary`` header per answer, whatever layers add to it, CORS included.

Litestar's CORS layer sets ``Vary: Origin`` by replacing the header (issue 27: with
``GPUPRICES_CORS_ORIGINS`` set, a browser's answers lost ``Vary: Accept-Encoding, Accept``, so a
shared cache could hand a gzip body to a client that asked for none, or CSV for JSON). The app's
own ``Vary`` is carried past that layer under a private name (:func:`keep_vary`, the outermost of
the app's middleware) and merged back with what CORS set (:func:`merge_vary`, around the whole
app). With allowed origins configured every answer also varies on ``Origin``, a request without
one included: the CORS headers differ by it, so a cache must not reuse one for the other.
"""

from __future__ import annotations

from collections.abc import Iterable

from litestar.types import ASGIApp, Message, Receive, Scope, Send

_CARRIED = b"x-gpuprices-vary"


def keep_vary(app: ASGIApp) -> ASGIApp:
    """Litestar middleware: the app's ``Vary`` leaves under a name the CORS layer leaves alone."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def carry(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (_CARRIED if name.lower() == b"vary" else name, value)
                    for name, value in message.get("headers", ())
                ]
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, carry)

    return middleware


def merge_vary(app: ASGIApp, always: Iterable[str] = ()) -> ASGIApp:
    """Wrap the whole app: one ``Vary`` of the carried values, the outer layers' and
    ``always`` (each name once, first spelling kept)."""
    extra = tuple(always)

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def merge(message: Message) -> None:
            if message["type"] == "http.response.start":
                varied: dict[str, str] = {}
                kept = []
                for name, value in message.get("headers", ()):
                    if name.lower() in (b"vary", _CARRIED):
                        for part in value.decode("latin-1").split(","):
                            if part.strip():
                                varied.setdefault(part.strip().lower(), part.strip())
                    else:
                        kept.append((name, value))
                for part in extra:
                    varied.setdefault(part.lower(), part)
                if varied:
                    kept.append((b"vary", ", ".join(varied.values()).encode("latin-1")))
                message = {**message, "headers": kept}
            await send(message)

        await app(scope, receive, merge)

    return wrapped


__all__ = ["keep_vary", "merge_vary"]
