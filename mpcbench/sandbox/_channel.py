"""The harness's end of the tool channel: length-prefixed JSON frames in and out, bounded.

    >>> channel = Channel(sock)            # doctest: +SKIP
    >>> channel.send({"op": "run", "cell": 1, "code": "print(1)"}); channel.receive()  # doctest: +SKIP
    >>> channel.next_message()             # a dict, None (need more bytes) or BROKEN  # doctest: +SKIP

A frame is a 4-byte big-endian length and that many bytes of JSON. What the worker sends is
untrusted: a frame over MAX_MESSAGE_BYTES, bytes that are not a JSON object, or answers piling
up unread past MAX_UNREAD_BYTES make the channel BROKEN (the caller kills the sandbox); the
harness never holds more than that. What the harness sends is ASCII-escaped JSON, so any text,
lone surrogates included, reaches the worker exactly.
"""

from __future__ import annotations

import json
import socket
import struct

MAX_MESSAGE_BYTES = 64 << 10       # a tool call is small; a longer frame is a broken channel
MAX_UNREAD_BYTES = 16 << 20        # answers the worker has not read: it sends calls without reading
MAX_ARGUMENT_DEPTH = 8             # lists and objects inside a call's arguments
BROKEN = "broken"
HEADER = struct.Struct(">I")


class Channel:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.inbox, self.outbox = bytearray(), bytearray()
        sock.setblocking(False)

    def receive(self) -> bool:
        """Take what the worker sent; False once its end is closed."""
        try:
            data = self.sock.recv(1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            return False
        self.inbox += data
        return bool(data)

    def next_message(self) -> dict | str | None:
        """The next complete message, None if more bytes are needed, or BROKEN."""
        if len(self.inbox) < HEADER.size:
            return None
        size, = HEADER.unpack_from(self.inbox)
        if size > MAX_MESSAGE_BYTES:
            return BROKEN
        if len(self.inbox) < HEADER.size + size:
            return None
        raw = bytes(self.inbox[HEADER.size:HEADER.size + size])
        del self.inbox[:HEADER.size + size]
        try:
            message = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            return BROKEN
        return message if isinstance(message, dict) else BROKEN

    def send(self, message: dict) -> None:
        """Queue a message and write what the socket takes now (the rest: `flush`, later)."""
        data = json.dumps(message).encode("ascii")     # \u escapes carry any text exactly
        self.outbox += HEADER.pack(len(data)) + data
        self.flush()

    def flush(self) -> bool:
        """Write what the socket takes now; False if the worker's end is closed."""
        try:
            sent = self.sock.send(self.outbox, socket.MSG_NOSIGNAL)
        except BlockingIOError:
            return True
        except OSError:
            return False
        del self.outbox[:sent]
        return True

    def flooded(self) -> bool:
        return len(self.outbox) > MAX_UNREAD_BYTES

    def close(self) -> None:
        self.sock.close()


def argument_problem(arguments: dict) -> str | None:
    """Why these arguments must not reach call_tool (too deep to trace safely, or a text that is
    not Unicode: a lone surrogate, which JSON's \\u escapes can carry)."""
    todo = [(arguments, 0)]
    while todo:
        value, depth = todo.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            return f"arguments nested more than {MAX_ARGUMENT_DEPTH} levels deep"
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return "arguments must be valid Unicode text"
        elif isinstance(value, dict):
            todo += [(item, depth + 1) for item in [*value, *value.values()]]
        elif isinstance(value, list):
            todo += [(item, depth + 1) for item in value]
    return None
