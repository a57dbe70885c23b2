"""The request cache: every model request and its response, kept in the result store.

Key = sha256 of (model, endpoint, prompt, parameters); value = the response (text, or a log-probability).
Written as each answer arrives (its own connection, WAL, autocommit), so a killed in-context-learning run
resumes mid-job without asking the server again, and `--rescore` re-scores from here with no server.
The table lives beside the result tables but is owned by this module (created on first use).
What is stored passes through `scrub` first (the llm backend's: its API key, the Authorization value and
URL credentials become ***), and a generated reply over backend.MAX_REPLY_CHARS (20,000 characters, not an
answer) is stored as a marker with its length and first 200 characters, never in full.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = """CREATE TABLE IF NOT EXISTS llm_requests (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, endpoint TEXT NOT NULL, request TEXT NOT NULL,
    response TEXT NOT NULL, created_at TEXT NOT NULL)"""
_MISSING = object()


def request_key(model: str, endpoint: str, request: dict[str, Any]) -> str:
    blob = json.dumps({"model": model, "endpoint": endpoint, "request": request}, sort_keys=True,
                      ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class RequestCache:
    """Thread-safe get/put over the store's `llm_requests` table (or an in-memory dict with no store)."""

    def __init__(self, path: str | Path | None = None, *, timeout: float = 60.0,
                 scrub: Callable[[str], str] | None = None) -> None:
        self._scrub = scrub
        self._lock = threading.Lock()
        self._mem: dict[str, Any] = {}
        self.path = None if path is None else Path(path)
        self._conn = None
        self.hits = self.misses = 0
        if self.path is not None:
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                                         check_same_thread=False)
            self._conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self._conn.execute(SCHEMA)

    def get(self, key: str) -> Any:
        """The cached response, or the module's _MISSING sentinel (use `has`/`lookup`)."""
        with self._lock:
            if key in self._mem:
                return self._mem[key]
            if self._conn is None:
                return _MISSING
            row = self._conn.execute("SELECT response FROM llm_requests WHERE key = ?", (key,)).fetchone()
        if row is None:
            return _MISSING
        value = json.loads(row[0])
        with self._lock:
            self._mem[key] = value
        return value

    def lookup(self, key: str) -> tuple[bool, Any]:
        value = self.get(key)
        found = value is not _MISSING
        with self._lock:
            if found:
                self.hits += 1
            else:
                self.misses += 1
        return found, (value if found else None)

    def put(self, key: str, model: str, endpoint: str, request: dict[str, Any], response: Any) -> Any:
        """Store a response; returns it as stored (credentials scrubbed), which is what a later get gives."""
        if self._scrub is not None:
            request, response = _scrubbed(request, self._scrub), _scrubbed(response, self._scrub)
        with self._lock:
            self._mem[key] = response
            if self._conn is not None:
                self._conn.execute(
                    "INSERT OR REPLACE INTO llm_requests (key, model, endpoint, request, response, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (key, model, endpoint, json.dumps(request, ensure_ascii=False, sort_keys=True),
                     json.dumps(response, ensure_ascii=False), datetime.now(UTC).isoformat()))
        return response

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _scrubbed(value: Any, scrub: Callable[[str], str]) -> Any:
    """`value` with `scrub` applied to every string in it (keys included)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {_scrubbed(k, scrub): _scrubbed(v, scrub) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrubbed(v, scrub) for v in value]
    return value


def cached_requests(path: str | Path) -> list[dict[str, Any]]:
    """Every cached request (for inspection and tests); [] when the store has no cache table."""
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        try:
            rows = conn.execute("SELECT * FROM llm_requests ORDER BY created_at").fetchall()
        except sqlite3.OperationalError:
            return []
    return [{**dict(r), "request": json.loads(r["request"]), "response": json.loads(r["response"])} for r in rows]
