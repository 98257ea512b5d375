"""Uploaded SWF traces and run-time lists: validated and stored by content on the request side,
found by the engines through the trace library the worker hands them (never a path from web
input).

Where uploads live is one interface, :class:`TraceStore`, chosen by ``HETSITE_TRACE_STORE``:

* ``database`` (the default): one gzip-compressed row per upload, keyed by its SHA-256
  (:class:`~hetsite.models.TraceUpload`). Every worker that reaches the database reads every
  upload, so workers on other machines need no shared folder. The engines read files, so a
  worker writes a trace once into its own local cache folder (``HETSITE_TRACE_CACHE_DIR``) and
  its parse cache takes it from there.
* ``folder``: ``<sha256>.swf[.gz]`` files in ``HETSITE_TRACE_UPLOAD_DIR``, which web and
  workers must then share (the layout of earlier versions; migration 0003 imports those files
  into the database).

A scenario names an upload as ``upload:<sha256>``, whichever store holds it.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from django.conf import settings
from django.db import IntegrityError, transaction

from simcore.errors import ScenarioError
from simcore.runtimes import LIST, read_runtimes, sniff
from simcore.swf import GZIP_MAGIC, read_swf
from simcore.traces import TraceLibrary, UploadDir, UploadStore, upload_sha

log = logging.getLogger(__name__)
_FILE_RE = re.compile(r"^([0-9a-f]{64})(\.swf|\.swf\.gz|\.txt|\.txt\.gz)?$")


@dataclass(frozen=True)
class StoredTrace:
    sha256: str
    size: int  # bytes as uploaded
    jobs: int | None  # job lines, when the store recorded them


class TraceStore(UploadStore, Protocol):
    """Where uploads are kept: ``save`` a validated file, ``info`` about one, and ``locate``
    a readable local file for the engines (:class:`simcore.traces.UploadStore`)."""

    def save(self, sha256: str, source: Path, *, jobs: int, suffix: str = ".swf") -> None: ...

    def info(self, sha256: str) -> StoredTrace | None: ...


def compressed(raw: bytes) -> bytes:
    """The stored form of an upload: gzip, kept as uploaded when it already is."""
    return raw if raw[:2] == GZIP_MAGIC else gzip.compress(raw, compresslevel=6)


@dataclass(frozen=True)
class DatabaseTraceStore:
    """Uploads as rows of the database, materialized on demand into a local cache folder."""

    cache_dir: Path

    def save(self, sha256: str, source: Path, *, jobs: int, suffix: str = ".swf") -> None:
        from .models import TraceUpload

        raw = Path(source).read_bytes()
        if TraceUpload.objects.filter(sha256=sha256).exists():
            return  # content-addressed: the same bytes are already there
        try:
            with transaction.atomic():
                TraceUpload.objects.create(sha256=sha256, data=compressed(raw), size=len(raw),
                                           jobs=jobs)
        except IntegrityError:  # the same file uploaded twice at once
            if not TraceUpload.objects.filter(sha256=sha256).exists():
                raise

    def info(self, sha256: str) -> StoredTrace | None:
        from .models import TraceUpload

        row = TraceUpload.objects.filter(sha256=sha256).values("size", "jobs").first()
        return StoredTrace(sha256, row["size"], row["jobs"]) if row else None

    def locate(self, sha256: str) -> Path | None:
        from .models import TraceUpload

        path = Path(self.cache_dir) / f"{sha256}.swf.gz"
        if path.is_file():
            return path
        data = TraceUpload.objects.filter(sha256=sha256).values_list("data", flat=True).first()
        if data is None:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside its final name and renamed, so a concurrent reader (another process
        # of this worker) never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".fetch-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(bytes(data))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return path


@dataclass(frozen=True)
class FolderTraceStore:
    """Uploads as files in one folder (shared by web and workers)."""

    directory: Path

    def save(self, sha256: str, source: Path, *, jobs: int, suffix: str = ".swf") -> None:
        directory = Path(self.directory)
        directory.mkdir(parents=True, exist_ok=True)
        with open(source, "rb") as fh:
            gz = fh.read(2) == GZIP_MAGIC
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".upload-")
        os.close(fd)
        try:
            shutil.copyfile(source, tmp)
            os.replace(tmp, directory / (sha256 + suffix + (".gz" if gz else "")))
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def info(self, sha256: str) -> StoredTrace | None:
        path = self.locate(sha256)
        return StoredTrace(sha256, path.stat().st_size, None) if path else None

    def locate(self, sha256: str) -> Path | None:
        return UploadDir(Path(self.directory)).locate(sha256)


def trace_store() -> TraceStore:
    """The store this site is configured with (``HETSITE_TRACE_STORE``)."""
    if settings.HETSITE_TRACE_STORE == "folder":
        return FolderTraceStore(Path(settings.HETSITE_TRACE_UPLOAD_DIR))
    return DatabaseTraceStore(Path(settings.HETSITE_TRACE_CACHE_DIR))


def trace_library() -> TraceLibrary:
    """The shipped traces plus this site's uploads, as the engines read them."""
    return TraceLibrary(uploads=trace_store())


def uploaded_trace_jobs(trace: str) -> int:
    """The job count of the upload a scenario names (0 when the store does not record it);
    ScenarioError("trace") when no such upload exists, so a submission naming one fails at the
    boundary instead of in every run."""
    sha = upload_sha(trace)
    found = trace_store().info(sha) if sha else None
    if found is None:
        raise ScenarioError("trace", f"no uploaded trace has the SHA-256 {sha or trace!r}; "
                                     "upload the file first")
    return found.jobs or 0


def _count_jobs(path: str | os.PathLike) -> int:
    """Parse the whole file within the upload limits; raises ScenarioError naming the line."""
    _header, jobs = read_swf(path, max_bytes=settings.HETSITE_MAX_TRACE_DECODED_BYTES,
                             max_jobs=settings.HETSITE_MAX_TRACE_JOBS)
    return sum(1 for _ in jobs)


def _check_swf(path: str) -> tuple[int, str]:
    count = _count_jobs(path)
    if count == 0:
        raise ScenarioError("trace", "holds no jobs")
    return count, ".swf"


def _check_runtimes(path: str) -> tuple[int, str]:
    _kind, values = read_runtimes(path, max_bytes=settings.HETSITE_MAX_TRACE_DECODED_BYTES,
                                  max_values=settings.HETSITE_MAX_TRACE_JOBS)
    return len(values), ".txt" if sniff(path) == LIST else ".swf"


def store_trace_upload(upload) -> str:
    """Validate an uploaded SWF file (streaming) and store it by content; returns its trace id.

    The file is copied in chunks to a temporary file while hashing, refused past
    ``HETSITE_MAX_TRACE_BYTES``, then parsed line by line (errors name the line and field) with
    at most ``HETSITE_MAX_TRACE_JOBS`` jobs. Only a fully valid file is kept, under its SHA-256;
    the scenario refers to it as ``upload:<sha256>``, never by a path.
    """
    return _store(upload, "trace_file", _check_swf)


def store_runtimes_upload(upload, field: str = "runtimes_file") -> str:
    """Like :func:`store_trace_upload` for task run times: a list with one run time (s) per
    line, or an SWF trace whose run-time column is used (``simcore.runtimes``)."""
    return _store(upload, field, _check_runtimes)


def _store(upload, field: str, check) -> str:
    """Copy ``upload`` to a temporary file (hashing, within the byte limit), ``check(path)`` it
    (returns the count of jobs or values and the file suffix; raises ScenarioError) and keep it
    in the site's store under its SHA-256."""
    limit = settings.HETSITE_MAX_TRACE_BYTES
    digest = hashlib.sha256()
    size = 0
    fd, tmp_name = tempfile.mkstemp(prefix="hetsite-upload-")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in upload.chunks():
                size += len(chunk)
                if size > limit:
                    raise ScenarioError(field, f"is larger than the upload limit of "
                                               f"{limit:,} bytes")
                digest.update(chunk)
                out.write(chunk)
        if size == 0:
            raise ScenarioError(field, "is empty")
        count, suffix = check(tmp_name)
        sha = digest.hexdigest()
        trace_store().save(sha, Path(tmp_name), jobs=count, suffix=suffix)
        return f"upload:{sha}"
    except ScenarioError as err:
        if err.field == field:
            raise
        where = err.field.partition(":")[2]  # "trace:12:run_time" -> "12:run_time"
        raise ScenarioError(field, f"{where}: {err.message}" if where else err.message
                            ) from None
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)


def import_upload_folder(directory: Path, model) -> dict[str, int]:
    """Copy ``<sha256>[.swf|.swf.gz]`` files of an upload folder into the database.

    ``model`` is the TraceUpload model (the migration passes its historical one). Files already
    imported are skipped; files that are not uploads (other names, content that does not match
    the name, or no longer a valid trace under the current limits) are left alone with a
    warning. Nothing is deleted: the folder can be removed once the import is checked.
    """
    counts = {"imported": 0, "present": 0, "skipped": 0}
    directory = Path(directory)
    if not directory.is_dir():
        return counts
    for path in sorted(directory.iterdir()):
        match = _FILE_RE.match(path.name)
        if match is None or not path.is_file():
            continue
        sha = match.group(1)
        if model.objects.filter(sha256=sha).exists():
            counts["present"] += 1
            continue
        raw = path.read_bytes()
        if hashlib.sha256(raw).hexdigest() != sha:
            log.warning("trace upload %s: content does not match its SHA-256 name; not imported",
                        path)
            counts["skipped"] += 1
            continue
        try:
            jobs = _count_jobs(path)
        except ScenarioError as err:
            log.warning("trace upload %s: %s; not imported", path, err)
            counts["skipped"] += 1
            continue
        model.objects.create(sha256=sha, data=compressed(raw), size=len(raw), jobs=jobs)
        counts["imported"] += 1
    return counts
