"""The embedded Celery broker (no ``REDIS_URL``): kombu's filesystem transport, with every
file written whole before another process can see it.

Why a transport of our own: kombu's filesystem transport creates a message file and only then
writes the message into it (kombu issue #1551, open). A worker listing the queue folder in
between takes the empty file, ``json.loads("")`` raises, and Celery stops the worker
("Unrecoverable error: JSONDecodeError"). Its fanout tables (``control/*.exchange``) are
truncated before they are locked, with the same race. No setting of kombu or Celery changes
either. The other serverless transport, SQLAlchemy on SQLite, adds a dependency, keeps every
delivered message in its table (an ack does not delete it) and takes SQLite's write lock
(BEGIN IMMEDIATE) on every poll, against the app's own writes. So this subclass changes only
how files are written and taken:

- a message is written under a temporary name in ``staging/`` and renamed into the queue
  folder when complete (a rename on one file system is atomic: a reader sees the whole
  file or none);
- a consumer takes a message by renaming it into ``claimed/`` (atomic too, unlike kombu's
  move into the system's temporary folder, which copies across file systems), then reads
  and deletes it;
- a fanout table is changed under an exclusive lock on a lock file of its own and replaced
  whole, so a publisher reading it never sees it half written;
- a file that still cannot be read (a power cut between the rename and the disk write) is
  moved to ``rejected/`` and logged; the worker goes on.

Everything else (queues named by file, fanout, the message format) is kombu's.
"""

import logging
import os
import tempfile
import uuid
from pathlib import Path
from queue import Empty
from time import monotonic

from kombu.transport import TRANSPORT_ALIASES
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps
from kombu.utils.json import loads
from kombu.utils.objects import cached_property

SCHEME = "atomicfs"
logger = logging.getLogger(__name__)


def write_atomically(path: Path, data: bytes, staging: Path) -> None:
    """Write ``data`` to ``path`` so that no reader ever sees a partial file."""
    fd, tmp = tempfile.mkstemp(dir=staging, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Channel(filesystem.Channel):
    def _folder(self, name: str) -> Path:
        folder = Path(self.data_folder_out).parent / name
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    @cached_property
    def staging_folder(self) -> Path:
        return self._folder("staging")

    @cached_property
    def claimed_folder(self) -> Path:
        return self._folder("claimed")

    @cached_property
    def rejected_folder(self) -> Path:
        return self._folder("rejected")

    def _put(self, queue, payload, **kwargs):
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        try:
            write_atomically(
                Path(self.data_folder_out) / name, str_to_bytes(dumps(payload)), self.staging_folder
            )
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {name!r} to directory") from exc

    def _get(self, queue):
        wanted = f"{queue}.msg"
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.partition(".")[2] != wanted:
                continue
            claimed = self.claimed_folder / name
            try:
                os.rename(os.path.join(self.data_folder_in, name), claimed)
            except OSError:
                continue  # another consumer took it
            try:
                payload = claimed.read_bytes()
            except OSError as exc:
                raise filesystem.ChannelError(f"Cannot read file {name!r} from queue.") from exc
            try:
                message = loads(bytes_to_str(payload))
            except ValueError:
                logger.error("unreadable message file %s (%d bytes) set aside", name, len(payload))
                os.replace(claimed, self.rejected_folder / name)
                continue
            if self.store_processed:
                os.replace(claimed, Path(self.processed_folder) / name)
            else:
                claimed.unlink(missing_ok=True)
            return message
        raise Empty()

    # --- fanout tables -----------------------------------------------------------------
    def _change_table(self, exchange, change) -> None:
        """Apply ``change(queues) -> queues | None`` to the exchange's table, under its lock."""
        file = self._exchange_file(exchange)
        self.control_folder.mkdir(exist_ok=True)
        try:
            with open(file.with_suffix(".lock"), "ab") as lock_file:
                filesystem.lock(lock_file, filesystem.LOCK_EX)
                try:
                    queues = self.get_table(exchange)
                    changed = change(queues)
                    if changed is not None:
                        data = str_to_bytes(dumps([list(q) for q in changed]))
                        write_atomically(file, data, self.staging_folder)
                finally:
                    filesystem.unlock(lock_file)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot open {file}") from exc

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._change_table(exchange, lambda qs: None if entry in qs else [entry, *qs])

    def _delete(self, queue, exchange, routing_key, pattern, *args, **kwargs):
        # kombu's virtual Channel forgets the queue; its filesystem parent would then
        # rewrite the table in place, so skip that one and use ours.
        super(filesystem.Channel, self)._delete(
            queue, exchange, routing_key, pattern, *args, **kwargs
        )
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._change_table(
            exchange, lambda qs: [q for q in qs if q != entry] if entry in qs else None
        )


class Transport(filesystem.Transport):
    """kombu's filesystem transport with atomic writes (see the module's docstring)."""

    Channel = Channel


# The broker URL ``atomicfs://`` names this transport (settings.py); config/celery.py imports
# this module, so every process that has the Celery app can resolve it. (A URL rather than
# Celery's ``broker_transport`` setting, which would also apply to a connection opened with
# another URL, such as a Redis one.)
TRANSPORT_ALIASES.setdefault(SCHEME, "config.broker:Transport")
