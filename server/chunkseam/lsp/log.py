"""Logging through ``window/logMessage``.

The ``chunkseam`` logger is forwarded to the client at the level of the
``trace`` setting; everything else (pygls' own chatter) goes to stderr at
WARNING. Records emitted from worker threads are handed to the event loop,
which owns the protocol's writer. Nothing is ever written to stdout.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import Any

from lsprotocol import types

LOGGER_NAME = "chunkseam"
logger = logging.getLogger(LOGGER_NAME)

#: accepted values of the ``trace`` setting -> logging level
TRACE_LEVELS = {
    "off": logging.ERROR,
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "warn": logging.WARNING,
    "info": logging.INFO,
    "messages": logging.INFO,
    "debug": logging.DEBUG,
    "verbose": logging.DEBUG,
}
DEFAULT_LEVEL = logging.INFO


def trace_level(value: Any) -> int | None:
    """The logging level for a ``trace`` / ``logLevel`` setting value, or None if not valid."""
    if isinstance(value, str):
        return TRACE_LEVELS.get(value.strip().lower())
    return None


def _message_type(levelno: int) -> types.MessageType:
    if levelno >= logging.ERROR:
        return types.MessageType.Error
    if levelno >= logging.WARNING:
        return types.MessageType.Warning
    if levelno >= logging.INFO:
        return types.MessageType.Info
    return types.MessageType.Log


class LspLogHandler(logging.Handler):
    """Sends records to the client as ``window/logMessage`` notifications."""

    def __init__(self, server: Any) -> None:
        super().__init__(level=DEFAULT_LEVEL)
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_thread: int | None = None
        self._fallback = logging.StreamHandler(sys.stderr)
        self.setFormatter(logging.Formatter("%(message)s"))

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.loop_thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = self.format(record)
        except Exception:  # pragma: no cover - a broken record must not break the server
            return
        params = types.LogMessageParams(type=_message_type(record.levelno), message=message)
        loop = self.loop
        if loop is None or loop.is_closed() or getattr(self.server.protocol, "writer", None) is None:
            self._fallback.emit(record)
            return
        if threading.get_ident() == self.loop_thread:
            self._send(params)
        else:
            try:
                loop.call_soon_threadsafe(self._send, params)
            except RuntimeError:  # loop closed between the check and the call
                self._fallback.emit(record)

    def _send(self, params: types.LogMessageParams) -> None:
        try:
            self.server.window_log_message(params)
        except Exception:  # pragma: no cover - e.g. the pipe closed at exit
            pass


def setup(server: Any, log_file: str | None = None) -> LspLogHandler:
    """Install the handlers: chunkseam -> client (and the log file), the rest -> stderr."""
    handler = LspLogHandler(server)
    logger.handlers[:] = [handler]
    logger.setLevel(DEFAULT_LEVEL)
    logger.propagate = False
    root = logging.getLogger()
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root.handlers[:] = [stderr]
    root.setLevel(logging.WARNING)
    if log_file:
        fh = logging.FileHandler(log_file, encoding="utf-8")
        fh.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        fh.setLevel(logging.DEBUG)
        logger.addHandler(fh)
        root.addHandler(fh)
    return handler


def set_level(handler: LspLogHandler, level: int) -> None:
    handler.setLevel(level)
    logger.setLevel(min(level, *(h.level for h in logger.handlers if h is not handler)) if len(logger.handlers) > 1 else level)
