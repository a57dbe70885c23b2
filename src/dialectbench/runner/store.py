"""The result store: one SQLite file with runs, jobs, scores and per-example predictions.

Written for crash safety and concurrent writers: WAL journal, a busy timeout, synchronous=FULL, and
each job's rows (job, score, predictions) committed in one `BEGIN IMMEDIATE` transaction, so a run
killed at any instant leaves either all of a job or none of it. A job already `done` is never
overwritten unless the caller forces it (`--rerun`), so two runs racing on the same job keep one result.

Waiting is bounded: a write that finds the lock held says once what it waits for, then gives up after
`lock_timeout` seconds (default $DIALECTBENCH_LOCK_TIMEOUT or 120) with StoreLocked. `Store(path,
readonly=True)` (results export, report) takes no write lock at all: WAL readers never wait for writers.
A running run holds an flock on `<store>.runs/<run_id>.lock`; the next run to start marks any `running`
run whose lock is free (its process is gone: killed, crashed, power cut) as `interrupted`.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from dialectbench.scores import SCORE_COLUMNS

DEFAULT_STORE = Path("dialectbench-results") / "results.sqlite"
SCHEMA_VERSION = 1
ENV_LOCK_TIMEOUT = "DIALECTBENCH_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 120.0
_SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = {"runs", "jobs", "scores", "predictions", "skips"}  # what makes a file a result store
_ADDED_TABLES = {"samples"}  # added later: created on the next writable open of an older store
_ADDED_COLUMNS = {("samples", "gold"): "TEXT"}  # likewise added to an older store's table

try:
    import fcntl
except ImportError:  # not POSIX: runs are never marked stale (they stay `running` as before)
    fcntl = None  # type: ignore[assignment]


class StoreError(RuntimeError):
    """The result store cannot be used (a folder, not an SQLite file, not a result store, unwritable)."""


class StoreLocked(StoreError):
    """Another process held the store's write lock for longer than the lock timeout."""


def lock_timeout() -> float:
    """Seconds a write waits for another process's lock: $DIALECTBENCH_LOCK_TIMEOUT, else 120."""
    raw = os.environ.get(ENV_LOCK_TIMEOUT, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_LOCK_TIMEOUT
    except ValueError:
        raise StoreError(f"{ENV_LOCK_TIMEOUT}={raw!r} is not a number of seconds") from None
    if not value >= 0:
        raise StoreError(f"{ENV_LOCK_TIMEOUT}={raw!r} must be zero or more seconds")
    return value


def _announce(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    package_version TEXT,
    library_versions TEXT,
    seed INTEGER,
    config TEXT,
    git_hash TEXT,
    summary TEXT
);
CREATE TABLE IF NOT EXISTS jobs (
    job_key TEXT PRIMARY KEY,
    task TEXT NOT NULL, variety TEXT NOT NULL, cluster TEXT, model TEXT NOT NULL,
    setting TEXT NOT NULL, train_on TEXT NOT NULL, train_members TEXT,
    data_fingerprint TEXT, config TEXT, seed INTEGER,
    status TEXT NOT NULL,
    message TEXT,
    run_id TEXT REFERENCES runs(run_id),
    finished_at TEXT,
    fit_seconds REAL, eval_seconds REAL,
    completions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS scores (
    job_key TEXT PRIMARY KEY REFERENCES jobs(job_key),
    run_id TEXT REFERENCES runs(run_id),
    task TEXT NOT NULL, cluster TEXT, variety TEXT NOT NULL, model TEXT NOT NULL, setting TEXT NOT NULL,
    train_on TEXT NOT NULL, metric TEXT NOT NULL, score REAL, n INTEGER,
    signature TEXT, extra TEXT
);
CREATE TABLE IF NOT EXISTS predictions (
    job_key TEXT NOT NULL REFERENCES jobs(job_key),
    idx INTEGER NOT NULL,
    example_id TEXT,
    prediction TEXT,
    value REAL,
    PRIMARY KEY (job_key, idx)
);
CREATE TABLE IF NOT EXISTS samples (
    job_key TEXT NOT NULL REFERENCES jobs(job_key),
    idx INTEGER NOT NULL,
    example_id TEXT,
    prompt TEXT,
    response TEXT,
    gold TEXT,
    PRIMARY KEY (job_key, idx)
);
CREATE TABLE IF NOT EXISTS skips (
    run_id TEXT REFERENCES runs(run_id),
    task TEXT, variety TEXT, setting TEXT, reason TEXT
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status);
"""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass
class JobRecord:
    """Everything one finished (or skipped / failed) job writes to the store."""

    job_key: str
    task: str
    variety: str
    cluster: str
    model: str
    setting: str
    train_on: str
    status: str  # done | skipped | failed
    train_members: Sequence[str] = ()
    data_fingerprint: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    message: str = ""
    metric: str = ""
    score: float | None = None
    n: int = 0
    signature: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    example_ids: Sequence[str] = ()
    predictions: Sequence[Any] = ()
    values: Sequence[float | None] | None = None
    samples: Sequence[dict[str, Any]] = ()  # --log-samples: {"prompt", "reply", "gold"} per example, in order
    fit_seconds: float = 0.0
    eval_seconds: float = 0.0


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=_default)


def _loads(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _flags(extra: str | None) -> Any:
    """A stored score's flags (runner/flags.py), None when it has none; most scores have none, and their
    extra (per-example stats of a treebank) is not parsed for nothing: a 50k-score report read 50k."""
    if not extra or '"flags"' not in extra:
        return None
    return (_loads(extra) or {}).get("flags")


def _default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _faults_as_store_errors(method: Callable[..., Any]) -> Callable[..., Any]:
    """SQLite's own errors while reading or writing (damaged pages deep in a file whose header and schema
    read fine, a disk I/O error, a full disk) become the one-line StoreError the CLI prints; misuse of the
    API (ProgrammingError, IntegrityError) keeps its traceback."""

    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.ProgrammingError, sqlite3.IntegrityError, sqlite3.InterfaceError):
            raise
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path}: not a usable SQLite result store ({err})") from None

    return wrapper


class Store:
    """One connection to the result store; create it per process (SQLite connections do not travel)."""

    def __init__(self, path: str | Path, *, timeout: float | None = None, readonly: bool = False,
                 on_wait: Any = _announce) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.timeout = lock_timeout() if timeout is None else float(timeout)
        self.on_wait = on_wait
        self._run_locks: dict[str, Any] = {}
        # plain statements wait up to 10 s (a checkpoint, a WAL recovery); taking the write lock waits in
        # `_retry`, in short steps, so that the wait can be announced and bounded by `timeout`
        self._busy_ms = int(min(self.timeout, 10.0) * 1000)
        _check_path(self.path, readonly)
        try:
            if readonly:
                self.conn = self._connect_readonly()
                return
            self.conn = self._connect(str(self.path))
            if self.conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                self._retry(lambda: self.conn.execute("PRAGMA journal_mode = WAL"), "switch to WAL")
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.execute("PRAGMA foreign_keys = ON")
            if not self._has_schema():  # an up-to-date store is opened without taking the write lock
                with self.transaction():  # statement by statement: executescript() would commit mid-way
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            self.conn.execute(statement)
                    for (table, column), kind in _ADDED_COLUMNS.items():
                        if column not in self._columns(table):
                            self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
                    self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path}: not a usable SQLite result store ({err})") from None

    def _connect(self, target: str, uri: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=self._busy_ms / 1000, isolation_level=None, uri=uri)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        return conn

    def _connect_readonly(self) -> sqlite3.Connection:
        """Opened with mode=ro, so reading never creates or changes a file. A WAL store whose folder cannot
        be written (read-only media) has no -shm file and cannot get one, which SQLite reports as "unable to
        open database file"; nothing can write to it then, so it is read as immutable (no locks, no -shm)."""
        base = self.path.resolve().as_uri()
        try:
            return self._checked(f"{base}?mode=ro")
        except sqlite3.OperationalError:
            wal = self.path.with_name(self.path.name + "-wal")
            if os.access(self.path.parent, os.W_OK) or (wal.is_file() and wal.stat().st_size):
                raise  # a folder we may write, or a journal that immutable would ignore: a real fault
        return self._checked(f"{base}?immutable=1")

    def _checked(self, uri: str) -> sqlite3.Connection:
        """A read-only connection to a file that has the result store's tables."""
        conn = self._connect(uri, uri=True)
        try:
            conn.execute("PRAGMA query_only = ON")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError:
            conn.close()
            raise
        if not _TABLES <= tables:
            conn.close()
            raise StoreError(f"{self.path}: an SQLite file but not a dialectbench result store (no "
                             f"{', '.join(sorted(_TABLES - tables))} table)")
        return conn

    def _columns(self, table: str) -> set[str]:
        return {r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")}

    def _has_schema(self) -> bool:
        tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        return (_TABLES | _ADDED_TABLES <= tables and version == SCHEMA_VERSION
                and all(column in self._columns(table) for table, column in _ADDED_COLUMNS))

    def _retry(self, fn: Any, what: str = "write") -> Any:
        """Run `fn` until it gets past another process's lock, at most `self.timeout` seconds; the first
        wait is announced (one line), running out raises StoreLocked."""
        start = time.monotonic()
        announced = False
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) and "busy" not in str(err):
                    raise
                waited = time.monotonic() - start
                if waited >= self.timeout:
                    raise StoreLocked(f"{self.path}: gave up after waiting {self.timeout:g} s for another process "
                                      f"to release the result store's write lock (limit: ${ENV_LOCK_TIMEOUT}); "
                                      "try again when that process is done, or raise the limit") from None
                if not announced and self.on_wait is not None:
                    self.on_wait(f"waiting for {self.path}: another process holds its write lock (to {what}; "
                                 f"giving up after {self.timeout:g} s)")
                    announced = True
                time.sleep(min(0.1, max(self.timeout - waited, 0.0)))

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE takes the write lock up front: no lock upgrade, hence no deadlock."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only")
        self.conn.execute("PRAGMA busy_timeout = 100")
        try:
            self._retry(lambda: self.conn.execute("BEGIN IMMEDIATE"))
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self._retry(lambda: self.conn.execute("COMMIT"), "commit")

    def close(self) -> None:
        for run_id in list(self._run_locks):
            self._release_run_lock(run_id)
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs -------------------------------------------------------------------------------------
    @_faults_as_store_errors
    def start_run(self, run_id: str, *, seed: int, config: dict[str, Any], package_version: str,
                  library_versions: dict[str, str], git_hash: str | None) -> list[str]:
        """Record a new `running` run (holding its liveness lock); returns the ids of stale `running` runs
        it found and marked `interrupted`."""
        self._take_run_lock(run_id)
        with self.transaction() as c:
            stale = [r[0] for r in c.execute("SELECT run_id FROM runs WHERE status = 'running'")
                     if self._is_stale(r[0])]
            for old in stale:
                summary = {"note": f"marked interrupted by run {run_id}: its process had ended without "
                                   "finishing"}
                c.execute("UPDATE runs SET status = 'interrupted', summary = coalesce(summary, ?) WHERE run_id = ?",
                          (_json(summary), old))
            c.execute("INSERT INTO runs (run_id, started_at, status, package_version, library_versions, seed,"
                      " config, git_hash) VALUES (?, ?, 'running', ?, ?, ?, ?, ?)",
                      (run_id, now(), package_version, _json(library_versions), seed, _json(config), git_hash))
        for old in stale:
            self._lock_path(old).unlink(missing_ok=True)
        return stale

    @_faults_as_store_errors
    def finish_run(self, run_id: str, status: str, summary: dict[str, Any]) -> None:
        with self.transaction() as c:
            c.execute("UPDATE runs SET finished_at = ?, status = ?, summary = ? WHERE run_id = ?",
                      (now(), status, _json(summary), run_id))
        self._release_run_lock(run_id)

    # -- run liveness: an flock held by the running process, released by the OS however it ends --------
    def _lock_path(self, run_id: str) -> Path:
        return self.path.with_name(f"{self.path.name}.runs") / f"{run_id}.lock"

    def _take_run_lock(self, run_id: str) -> None:
        if fcntl is None:
            return
        path = self._lock_path(run_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(path, "w")  # noqa: SIM115 - held open for the whole run
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._run_locks[run_id] = fh

    def _release_run_lock(self, run_id: str) -> None:
        fh = self._run_locks.pop(run_id, None)
        if fh is not None:
            self._lock_path(run_id).unlink(missing_ok=True)
            fh.close()

    def _is_stale(self, run_id: str) -> bool:
        """True when no process holds the run's lock (no lock file at all: a run from before locks, or one
        whose lock folder was removed, is stale too)."""
        if fcntl is None or run_id in self._run_locks:
            return False
        try:
            fh = open(self._lock_path(run_id))  # noqa: SIM115
        except FileNotFoundError:
            return True
        with fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

    @_faults_as_store_errors
    def record_skips(self, run_id: str, skips: Sequence[Any]) -> None:
        with self.transaction() as c:
            c.executemany("INSERT INTO skips (run_id, task, variety, setting, reason) VALUES (?, ?, ?, ?, ?)",
                          [(run_id, s.task, s.variety, s.setting, s.reason) for s in skips])

    @_faults_as_store_errors
    def runs(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute("SELECT * FROM runs ORDER BY started_at")]

    # -- jobs -------------------------------------------------------------------------------------
    @_faults_as_store_errors
    def done_keys(self, keys: Sequence[str] | None = None) -> set[str]:
        rows = self.conn.execute("SELECT job_key FROM jobs WHERE status = 'done'").fetchall()
        done = {r[0] for r in rows}
        return done if keys is None else done & set(keys)

    @_faults_as_store_errors
    def commit_job(self, run_id: str, record: JobRecord, *, force: bool = False) -> bool:
        """Write one job's results atomically. Returns False when the job was already done (kept as is)."""
        with self.transaction() as c:
            row = c.execute("SELECT status, run_id FROM jobs WHERE job_key = ?", (record.job_key,)).fetchone()
            if row is not None and row["status"] == "done" and not (force and record.status == "done"
                                                                  and row["run_id"] != run_id):
                return False
            self._write_job(c, run_id, record)
            if record.status == "done":
                self._write_results(c, run_id, record)
            else:  # a job failed for its invalid answers keeps its logged samples: they show why
                self._write_samples(c, record)
        return True

    @staticmethod
    def _write_job(c: sqlite3.Connection, run_id: str, r: JobRecord) -> None:
        c.execute(
            "INSERT INTO jobs (job_key, task, variety, cluster, model, setting, train_on, train_members,"
            " data_fingerprint, config, seed, status, message, run_id, finished_at, fit_seconds, eval_seconds,"
            " completions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(job_key) DO UPDATE SET status = excluded.status, message = excluded.message,"
            " run_id = excluded.run_id, finished_at = excluded.finished_at, fit_seconds = excluded.fit_seconds,"
            " eval_seconds = excluded.eval_seconds, completions = jobs.completions + excluded.completions",
            (r.job_key, r.task, r.variety, r.cluster, r.model, r.setting, r.train_on, _json(list(r.train_members)),
             r.data_fingerprint, _json(r.config), r.seed, r.status, r.message, run_id, now(), r.fit_seconds,
             r.eval_seconds, int(r.status == "done")))

    @staticmethod
    def _write_results(c: sqlite3.Connection, run_id: str, r: JobRecord) -> None:
        c.execute("DELETE FROM predictions WHERE job_key = ?", (r.job_key,))
        c.execute("DELETE FROM scores WHERE job_key = ?", (r.job_key,))
        c.execute("INSERT INTO scores (job_key, run_id, task, cluster, variety, model, setting, train_on, metric,"
                  " score, n, signature, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  (r.job_key, run_id, r.task, r.cluster, r.variety, r.model, r.setting, r.train_on, r.metric,
                   None if r.score is None else float(r.score), r.n, r.signature, _json(r.extra)))
        values = list(r.values) if r.values is not None else [None] * len(r.predictions)
        c.executemany("INSERT INTO predictions (job_key, idx, example_id, prediction, value) VALUES (?, ?, ?, ?, ?)",
                      [(r.job_key, i, ex_id, _json(pred), None if val is None else float(val))
                       for i, (ex_id, pred, val) in enumerate(zip(r.example_ids, r.predictions, values))])
        Store._write_samples(c, r)

    @staticmethod
    def _write_samples(c: sqlite3.Connection, r: JobRecord) -> None:
        if not r.samples:
            # a run without --log-samples (a --rescore from the request cache) never deletes what an earlier
            # run logged: the prompts and raw answers stay; only stored samples of other examples go
            if r.example_ids:
                c.execute(f"DELETE FROM samples WHERE job_key = ? AND example_id NOT IN"
                          f" ({', '.join('?' * len(r.example_ids))})", (r.job_key, *r.example_ids))
            return
        c.execute("DELETE FROM samples WHERE job_key = ?", (r.job_key,))  # new samples replace the old
        ids = list(r.example_ids) or [str(i) for i in range(len(r.samples))]
        c.executemany("INSERT INTO samples (job_key, idx, example_id, prompt, response, gold)"
                      " VALUES (?, ?, ?, ?, ?, ?)",
                      [(r.job_key, i, ex_id, sample.get("prompt"), _json(sample.get("reply")), _json(sample.get("gold")))
                       for i, (ex_id, sample) in enumerate(zip(ids, r.samples))])

    @_faults_as_store_errors
    def jobs(self, keys: Sequence[str] | None = None) -> list[dict[str, Any]]:
        rows = [dict(r) for r in self.conn.execute("SELECT * FROM jobs ORDER BY finished_at")]
        return rows if keys is None else [r for r in rows if r["job_key"] in set(keys)]

    # -- reading ----------------------------------------------------------------------------------
    @_faults_as_store_errors
    def scores(self, keys: Sequence[str] | None = None, *, latest: bool = True, detail: bool = False,
               include_overlap: bool = False) -> list[dict[str, Any]]:
        """The scores table (contract columns). `latest`: one row per (task, variety, model, setting,
        train_on, metric), the most recently finished; `detail` adds job key, run id, seed, signature.
        A job whose test set overlaps its training data above the leak threshold, or whose training and
        test label meanings are not known to align (runner/flags.py `kept_out`), is left out unless
        `include_overlap`: every maximum, summary, gap and report reads this table."""
        from dialectbench.runner.flags import kept_out

        rows = self.conn.execute(
            "SELECT s.*, j.seed, j.finished_at FROM scores s JOIN jobs j USING (job_key)"
            " WHERE j.status = 'done' ORDER BY j.finished_at").fetchall()
        out = [dict(r) for r in rows]
        for r in out:
            r["flags"] = _flags(r["extra"])
        if keys is not None:
            wanted = set(keys)
            out = [r for r in out if r["job_key"] in wanted]
        if latest:
            by_key = {(r["task"], r["variety"], r["model"], r["setting"], r["train_on"], r["metric"]): r for r in out}
            out = list(by_key.values())
        # after `latest`: a kept-out newest score leaves its row out, never lets an older one stand for it
        if not include_overlap:
            out = [r for r in out if not kept_out(r["flags"])]
        out.sort(key=lambda r: (r["task"], r["cluster"] or "", r["variety"], r["model"], r["setting"], r["train_on"]))
        cols = list(SCORE_COLUMNS) + (["signature", "seed", "run_id", "job_key"] if detail else [])
        if detail:  # the job's flags (runner/flags.py) as one readable line, "" when none
            from dialectbench.runner.flags import flag_text

            for r in out:
                r["flags"] = flag_text({"flags": r["flags"]} if r["flags"] else None)
            cols.append("flags")
        return [{c: r[c] for c in cols} for r in out]

    @_faults_as_store_errors
    def flagged(self, keys: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Done jobs whose scores carry flags (runner/flags.py): task, setting, variety, score, flags."""
        rows = self.conn.execute("SELECT s.job_key, s.task, s.setting, s.variety, s.model, s.score, s.extra"
                                 " FROM scores s JOIN jobs j USING (job_key) WHERE j.status = 'done'"
                                 " ORDER BY s.task, s.variety, s.setting").fetchall()
        wanted = None if keys is None else set(keys)
        out = []
        for r in rows:
            flags = _flags(r["extra"])
            if flags and (wanted is None or r["job_key"] in wanted):
                out.append({**{k: r[k] for k in ("job_key", "task", "setting", "variety", "model", "score")},
                            "flags": flags})
        return out

    @_faults_as_store_errors
    def predictions(self, job_key: str) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT idx, example_id, prediction, value FROM predictions WHERE job_key = ?"
                                 " ORDER BY idx", (job_key,)).fetchall()
        return [{**dict(r), "prediction": json.loads(r["prediction"])} for r in rows]

    @_faults_as_store_errors
    def samples(self, *, job: str | None = None, tasks: Sequence[str] = (),
                varieties: Sequence[str] = ()) -> list[dict[str, Any]]:
        """The logged samples (--log-samples) of every job that has them (done, or failed for too many
        invalid answers): job_key, status, task, variety, setting, model, idx, example_id, prompt, response,
        the gold answer (null in a store from before it was kept) and the stored prediction. `job`: a job key or a prefix of one. [] for a store from before samples."""
        if not self._has_table("samples"):
            return []
        gold = "s.gold" if "gold" in self._columns("samples") else "NULL AS gold"  # a read-only older store
        rows = self.conn.execute(
            "SELECT s.job_key, j.status, j.task, j.variety, j.setting, j.model, s.idx, s.example_id, s.prompt,"
            f" s.response, {gold}, p.prediction FROM samples s JOIN jobs j USING (job_key)"
            " LEFT JOIN predictions p ON p.job_key = s.job_key AND p.idx = s.idx"
            " ORDER BY j.task, j.variety, j.setting, j.model, s.job_key, s.idx").fetchall()
        wanted_tasks, wanted_varieties = set(tasks), {v.lower() for v in varieties}
        return [{**dict(r), "response": _loads(r["response"]), "gold": _loads(r["gold"]),
                 "prediction": _loads(r["prediction"])}
                for r in rows if (job is None or r["job_key"].startswith(job))
                and (not wanted_tasks or r["task"] in wanted_tasks)
                and (not wanted_varieties or r["variety"].lower() in wanted_varieties)]

    @_faults_as_store_errors
    def sample_counts(self) -> dict[str, int]:
        """job key -> number of logged samples ({} for a store from before samples)."""
        if not self._has_table("samples"):
            return {}
        return {r[0]: r[1] for r in self.conn.execute("SELECT job_key, count(*) FROM samples GROUP BY job_key")}

    def _has_table(self, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                 (name,)).fetchone() is not None

    @_faults_as_store_errors
    def integrity_check(self) -> str:
        return self.conn.execute("PRAGMA integrity_check").fetchone()[0]


def _check_path(path: Path, readonly: bool) -> None:
    """One clear StoreError for a path that cannot be a store (before sqlite3 gives a raw error)."""
    if path.is_dir():
        raise StoreError(f"{path}: is a folder; --store takes the result file (e.g. {path / 'results.sqlite'})")
    if path.exists():
        try:
            with path.open("rb") as fh:
                head = fh.read(16)
        except OSError as err:
            raise StoreError(f"{path}: cannot be read ({err.strerror or err})") from None
        if head and head != _SQLITE_MAGIC:
            raise StoreError(f"{path}: not an SQLite file, so not a result store (give the store written by "
                             "`dialectbench run`, or a new path)")
    elif readonly:
        raise StoreError(f"{path}: no result store there (run `dialectbench run` first or pass --store)")
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(f"{path}: cannot create its folder ({err.strerror or err})") from None
