"""A scripted HTTP server on 127.0.0.1 for fetcher tests (never the internet).

``Loopback(handler)`` starts a threaded server on a free loopback port. The
handler gets a :class:`Seen` request and returns ``Reply(status, body,
headers)``; ``Reply(delay=...)`` sleeps first (longer than the client's timeout
simulates a timeout). Every request is recorded in ``server.seen`` with its
path, query parameters (lists) and headers, so tests can prove what was (not)
asked.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes = b""


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | dict | list = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def payload(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        body = self.body
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            headers.setdefault("Content-Type", "application/json; charset=utf-8")
        if isinstance(body, str):
            body = body.encode("utf-8")
        return body, headers


def jittered(waits, caps) -> bool:
    """Full-jitter backoff (authbench.net.backoff_wait): as many waits as caps,
    each in [0, its cap] (``backoff * 2**attempt``)."""
    return len(waits) == len(caps) and all(0.0 <= w <= c for w, c in zip(waits, caps))


class Loopback:
    def __init__(self, handler: Callable[[Seen], Reply]):
        self.handler = handler
        self.seen: list[Seen] = []
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                req = Seen(self.command, parts.path, parse_qs(parts.query, keep_blank_values=True),
                           {k: v for k, v in self.headers.items()}, self.rfile.read(length) if length else b"")
                outer.seen.append(req)
                reply = outer.handler(req)
                if reply.delay:
                    time.sleep(reply.delay)
                body, headers = reply.payload()
                try:
                    self.send_response(reply.status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_HEAD = _serve

            def log_message(self, *args):  # keep test output quiet
                pass

        class _Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):  # a client that hung up on purpose
                pass

        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "Loopback":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
