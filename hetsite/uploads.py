"""Uploaded files: streamed, checked within limits, stored only with an experiment that uses them,
owned, and found by the engines through the library the worker hands them (never a path from
web input).

To the site an upload is an opaque blob: what it must hold is the business of the kind's file
input that takes it (``simcore.lab.FileInput``: its ``check`` reads the file, counts its records
and names the bad line), so nothing here knows a file format.

The web process pays for an upload in bounded steps. A body larger than one upload is refused
from its Content-Length before it is read (``hetsite.middleware``); :class:`CappedUploadHandler`
streams the file to a temporary file while hashing it, drops it the moment it passes
``HETSITE_MAX_TRACE_BYTES``, and drops it before its first byte when the client is over
``HETSITE_UPLOAD_RATE``. :func:`stage` then has the input's check read it with a budget: gzip may
expand at most ``HETSITE_MAX_TRACE_RATIO`` times, at most ``HETSITE_MAX_TRACE_JOBS`` records,
and at most ``HETSITE_UPLOAD_CHECK_SECONDS`` of CPU. A checked file is only *staged*: the store
keeps it when an experiment that uses it is created (:func:`keep`), so a rejected form leaves
nothing behind.

Who may use an upload: its owners (whoever uploaded those bytes: a user or an anonymous
owner's cookie token, like experiments) and anyone who may read an experiment that uses it
(``ExperimentUpload``); staff. An upload is removed with the last experiment that uses it, or
when its last owner deletes it. Names of uploads nobody may use are answered like names that
do not exist.

Where uploads live is one interface, :class:`BlobStore`, chosen by ``HETSITE_TRACE_STORE``:

* ``database`` (the default): one gzip-compressed row per upload, keyed by its SHA-256
  (:class:`~hetsite.models.Upload`). Every worker that reaches the database reads every
  upload, so workers on other machines need no shared folder. The engines read files, so a
  worker writes an upload once into its own local cache folder (``HETSITE_TRACE_CACHE_DIR``)
  and its parse cache takes it from there.
* ``folder``: ``<sha256><suffix>[.gz]`` files in ``HETSITE_TRACE_UPLOAD_DIR`` (the suffix the
  check gave), which web and workers must then share (the layout of earlier versions;
  migration 0004 imports those files into the database).

A scenario names an upload as ``upload:<sha256>``, whichever store holds it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gzip
import hashlib
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from django.conf import settings
from django.core.files.uploadhandler import SkipFile, TemporaryFileUploadHandler
from django.db import IntegrityError, transaction

from simcore.errors import DecodedTooLarge, ScenarioError
from simcore.inputs import UploadStore, upload_sha
from simcore.lab import CheckedFile, FileInput

from .throttles import Denied, refused

log = logging.getLogger(__name__)
# An upload's file in the folder store: its SHA-256, then the suffix its check gave and ".gz"
# when it came compressed (".swf", ".swf.gz", ".txt", any kind's own).
_FILE_RE = re.compile(r"^([0-9a-f]{64})((?:\.[A-Za-z0-9_-]+)*)$")
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class StoredUpload:
    sha256: str
    size: int  # bytes as uploaded
    records: int | None  # what the check counted, when the store recorded it


class BlobStore(UploadStore, Protocol):
    """Where uploads are kept: ``save`` a checked file, ``info`` about one, and ``locate``
    a readable local file for the engines (:class:`simcore.inputs.UploadStore`)."""

    def save(self, sha256: str, source: Path, *, records: int, suffix: str = "",
             accepts: str = "", name: str = "") -> None: ...

    def info(self, sha256: str) -> StoredUpload | None: ...

    def delete(self, sha256: str) -> None: ...


def compressed(raw: bytes) -> bytes:
    """The stored form of an upload: gzip, kept as uploaded when it already is."""
    return raw if raw[:2] == GZIP_MAGIC else gzip.compress(raw, compresslevel=6)


@dataclass(frozen=True)
class DatabaseStore:
    """Uploads as rows of the database, materialized on demand into a local cache folder."""

    cache_dir: Path

    def save(self, sha256: str, source: Path, *, records: int, suffix: str = "",
             accepts: str = "", name: str = "") -> None:
        from .models import Upload

        raw = Path(source).read_bytes()
        if Upload.objects.filter(sha256=sha256).exists():
            return  # content-addressed: the same bytes are already there
        try:
            with transaction.atomic():
                Upload.objects.create(sha256=sha256, data=compressed(raw), size=len(raw),
                                      records=records, accepts=accepts, name=name[:255])
        except IntegrityError:  # the same file uploaded twice at once
            if not Upload.objects.filter(sha256=sha256).exists():
                raise

    def info(self, sha256: str) -> StoredUpload | None:
        from .models import Upload

        row = Upload.objects.filter(sha256=sha256).values("size", "records").first()
        return StoredUpload(sha256, row["size"], row["records"]) if row else None

    def delete(self, sha256: str) -> None:
        from .models import Upload

        Upload.objects.filter(sha256=sha256).delete()

    def locate(self, sha256: str) -> Path | None:
        from .models import Upload

        path = Path(self.cache_dir) / f"{sha256}.gz"  # stored compressed, read as it is
        if not Upload.objects.filter(sha256=sha256).exists():
            # Deleted since this worker cached it: the copy goes too.
            path.unlink(missing_ok=True)
            return None
        if path.is_file():
            return path
        data = Upload.objects.filter(sha256=sha256).values_list("data", flat=True).first()
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
class FolderStore:
    """Uploads as files in one folder (shared by web and workers)."""

    directory: Path

    def save(self, sha256: str, source: Path, *, records: int, suffix: str = "",
             accepts: str = "", name: str = "") -> None:
        directory = Path(self.directory)
        directory.mkdir(parents=True, exist_ok=True)
        with open(source, "rb") as fh:
            gz = fh.read(2) == GZIP_MAGIC
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".upload-")
        os.close(fd)
        try:
            # The count first: a file found without it is priced at the site's limit.
            self._write_records(sha256, records)
            shutil.copyfile(source, tmp)
            os.replace(tmp, directory / (sha256 + suffix + (".gz" if gz else "")))
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def _records_path(self, sha256: str) -> Path:
        # Hidden: ``locate`` takes any name that starts with the SHA-256, and the import of an
        # old folder any name that is one.
        return Path(self.directory) / f".{sha256}.records"

    def _write_records(self, sha256: str, records: int) -> None:
        path = self._records_path(sha256)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".count-")
        with os.fdopen(fd, "w") as out:
            out.write(str(int(records)))
        os.replace(tmp, path)

    def info(self, sha256: str) -> StoredUpload | None:
        path = self.locate(sha256)
        if path is None:
            return None
        try:
            records = int(self._records_path(sha256).read_text())
        except (OSError, ValueError):  # a file put there by hand or by an earlier version
            records = None
        return StoredUpload(sha256, path.stat().st_size, records)

    def delete(self, sha256: str) -> None:
        while (path := self.locate(sha256)) is not None:
            path.unlink(missing_ok=True)
        if re.fullmatch(r"[0-9a-f]{64}", sha256):
            self._records_path(sha256).unlink(missing_ok=True)

    def locate(self, sha256: str) -> Path | None:
        directory = Path(self.directory)
        if not re.fullmatch(r"[0-9a-f]{64}", sha256) or not directory.is_dir():
            return None
        found = [path for path in directory.glob(sha256 + "*")
                 if path.is_file() and _FILE_RE.match(path.name)]
        return min(found, default=None)


def upload_store() -> BlobStore:
    """The store this site is configured with (``HETSITE_TRACE_STORE``)."""
    if settings.HETSITE_TRACE_STORE == "folder":
        return FolderStore(Path(settings.HETSITE_TRACE_UPLOAD_DIR))
    return DatabaseStore(Path(settings.HETSITE_TRACE_CACHE_DIR))


# --- receiving: the request's upload handler --------------------------------------------------

class CappedUploadHandler(TemporaryFileUploadHandler):
    """Streams each uploaded file to a temporary file, hashing it on the way. A file past
    ``HETSITE_MAX_TRACE_BYTES`` is dropped as soon as it passes (nothing more is written), and
    a file from a client over ``HETSITE_UPLOAD_RATE`` before its first byte; either refusal is
    kept on the request for the form to show beside the field (:func:`refusals`)."""

    def new_file(self, field_name, *args, **kwargs):
        self.digest, self.size = hashlib.sha256(), 0
        denied = refused(self.request, "upload")
        if denied is not None:
            _refuse(self.request, field_name, denied)
            raise SkipFile()
        super().new_file(field_name, *args, **kwargs)

    def receive_data_chunk(self, raw_data, start):
        self.size += len(raw_data)
        limit = settings.HETSITE_MAX_TRACE_BYTES
        if self.size > limit:
            _refuse(self.request, self.field_name, Denied(
                0, f"is larger than the upload limit of {limit:,} bytes", status=400))
            raise SkipFile()
        self.digest.update(raw_data)
        return super().receive_data_chunk(raw_data, start)

    def file_complete(self, file_size):
        upload = super().file_complete(file_size)
        upload.sha256 = self.digest.hexdigest()
        return upload


def _refuse(request, field: str, denied: Denied) -> None:
    if not hasattr(request, "hetsite_upload_refusals"):
        request.hetsite_upload_refusals = {}
    request.hetsite_upload_refusals[field] = denied


def refusals(request) -> dict[str, Denied]:
    """The files of this request that were dropped while it was read, by field."""
    return getattr(request, "hetsite_upload_refusals", {})


# --- checking: staged until an experiment keeps them -------------------------------------------

@dataclass(frozen=True)
class StagedUpload:
    """A checked upload in the request's temporary file, not stored yet."""

    sha256: str
    path: Path
    records: int  # what the check counted: jobs, run times
    suffix: str
    accepts: str = ""
    name: str = ""

    @property
    def ref(self) -> str:
        return f"upload:{self.sha256}"


class _OverBudget(Exception):
    pass


class _Budget:
    """Stops reading once this thread has spent ``seconds`` of CPU since it was made (CPU, not
    wall time: a loaded machine does not refuse a file a quiet one would take)."""

    def __init__(self, seconds: float):
        self.end = time.thread_time() + seconds

    @contextlib.contextmanager
    def open(self, path: Path):
        with open(path, "rb") as fh:
            yield _BudgetedFile(fh, self.end)


class _BudgetedFile:
    def __init__(self, fh, end: float):
        self._fh, self._end = fh, end

    def read(self, size: int = -1) -> bytes:
        if time.thread_time() > self._end:
            raise _OverBudget()
        return self._fh.read(size)


def _decoded_limit(path: Path, size: int) -> int:
    with open(path, "rb") as fh:
        packed = fh.read(2) == GZIP_MAGIC
    limit = settings.HETSITE_MAX_TRACE_DECODED_BYTES
    return min(limit, settings.HETSITE_MAX_TRACE_RATIO * size) if packed else limit


def _check(spec: FileInput, path: Path, size: int) -> CheckedFile:
    """The input's check of the file at ``path`` within this site's limits for one upload
    (bytes decoded, records, CPU): ScenarioError naming what was passed, with the line the
    check names as ``field:<line>...`` kept as the message's start."""
    limit = _decoded_limit(path, size)
    budget = _Budget(settings.HETSITE_UPLOAD_CHECK_SECONDS)
    try:
        return spec.check(functools.partial(budget.open, path), max_bytes=limit,
                          max_records=settings.HETSITE_MAX_TRACE_JOBS)
    except _OverBudget:
        raise ScenarioError("", f"takes longer to check than this site allows for one upload "
                                f"({settings.HETSITE_UPLOAD_CHECK_SECONDS:g} s of CPU, "
                                "HETSITE_UPLOAD_CHECK_SECONDS); upload a shorter file"
                            ) from None
    except DecodedTooLarge:
        ratio = settings.HETSITE_MAX_TRACE_RATIO
        raise ScenarioError("", f"decompresses to more than {limit:,} bytes (at most "
                                f"{ratio} times its size, HETSITE_MAX_TRACE_RATIO, and "
                                f"{settings.HETSITE_MAX_TRACE_DECODED_BYTES:,} bytes, "
                                "HETSITE_MAX_TRACE_DECODED_BYTES)") from None
    except ScenarioError as err:
        where = err.field.partition(":")[2]  # "trace:12:run_time" -> "12:run_time"
        raise ScenarioError("", f"{where}: {err.message}" if where else err.message
                            ) from None


def stage(upload, spec: FileInput) -> StagedUpload:
    """Check an upload for the file input ``spec`` (sizes first, then ``spec.check`` reads
    the file :class:`CappedUploadHandler` wrote); every error names the upload field."""
    field = spec.upload_field
    size = upload.size
    if size == 0:
        raise ScenarioError(field, "is empty")
    if size > settings.HETSITE_MAX_TRACE_BYTES:
        raise ScenarioError(field, f"is larger than the upload limit of "
                                   f"{settings.HETSITE_MAX_TRACE_BYTES:,} bytes")
    path = Path(upload.temporary_file_path())  # CappedUploadHandler writes every upload
    try:
        checked = _check(spec, path, size)
    except ScenarioError as err:
        raise ScenarioError(field, err.message) from None
    return StagedUpload(upload.sha256, path, checked.records, checked.suffix, spec.accepts,
                        Path(upload.name or "").name)


# --- naming: which uploads a scenario uses, and whether the caller may ---------------------------

_staged: contextvars.ContextVar[dict[str, StagedUpload] | None] = contextvars.ContextVar(
    "hetsite_staged_uploads", default=None)


@contextlib.contextmanager
def staging(staged: Iterable[StagedUpload]):
    """Within the block, :func:`uploaded_records` knows these uploads as if stored (the site
    limits of the submission that brings them count their records)."""
    token = _staged.set({s.sha256: s for s in staged})
    try:
        yield
    finally:
        _staged.reset(token)


def upload_refs(params: dict, axes: Iterable[dict] = ()) -> dict[str, str]:
    """Every upload the parameters or the sweep axes name: SHA-256 -> the field naming it."""
    found: dict[str, str] = {}
    stack: list[tuple[str, object]] = [("", params)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            stack.extend((path, v) for v in value)
        elif isinstance(value, str) and (sha := upload_sha(value)) is not None:
            found.setdefault(sha, path)
    for axis in axes:
        for value in axis.get("values", ()):
            if isinstance(value, str) and (sha := upload_sha(value)) is not None:
                found.setdefault(sha, "axes")
    return found


def check_usable(refs: dict[str, str], who, staged: Iterable[StagedUpload] = ()) -> None:
    """ScenarioError naming the field of the first upload that is neither staged by this
    submission nor stored and usable by ``who`` (None: a trusted caller, a command)."""
    from .permissions import usable_uploads

    pending = {s.sha256 for s in staged}
    wanted = set(refs) - pending
    allowed = wanted if who is None else usable_uploads(who, wanted)
    store = upload_store()
    for sha in sorted(wanted, key=lambda sha: refs[sha]):
        if sha not in allowed or store.info(sha) is None:
            raise ScenarioError(refs[sha], f"no uploaded file has the SHA-256 {sha}; upload "
                                           "the file first")


def uploaded_records(ref: str) -> int | None:
    """The records the check counted in the upload a scenario names (None when the store did
    not record them); ScenarioError("trace") when no such upload exists, so a submission
    naming one fails at the boundary instead of in every run."""
    sha = upload_sha(ref)
    staged = (_staged.get() or {}).get(sha)
    if staged is not None:
        return staged.records
    found = upload_store().info(sha) if sha else None
    if found is None:
        raise ScenarioError("trace", f"no uploaded file has the SHA-256 {sha or ref!r}; "
                                     "upload the file first")
    return found.records


class SiteUploads:
    """This site's uploads as the kinds' lab faces read them (``simcore.lab.Uploads``)."""

    def store(self) -> BlobStore:
        return upload_store()

    def count(self, ref: str) -> int:
        # Uncounted, an upload is priced at the most one may hold: pricing it at nothing would
        # let anyone queue the largest replays for free.
        records = uploaded_records(ref)
        return settings.HETSITE_MAX_TRACE_JOBS if records is None else records

    def recorded(self, ref: str) -> int | None:
        return uploaded_records(ref)


# --- keeping and removing ------------------------------------------------------------------------

def keep(staged: Iterable[StagedUpload]) -> None:
    """Store staged uploads (outside the experiment's transaction: compressing a large file
    must not hold the database's write lock)."""
    store = upload_store()
    for upload in staged:
        store.save(upload.sha256, upload.path, records=upload.records, suffix=upload.suffix,
                   accepts=upload.accepts, name=upload.name)


def link(experiment, shas: Iterable[str], owned: Iterable[str], owner=None,
         owner_token: str = "") -> None:
    """Record that ``experiment`` uses these uploads, and that its owner owns ``owned`` (the
    ones it brought)."""
    from .models import ExperimentUpload, UploadOwner

    ExperimentUpload.objects.bulk_create(
        [ExperimentUpload(experiment=experiment, sha256=sha) for sha in set(shas)],
        ignore_conflicts=True)
    if owner is None and not owner_token:
        return
    UploadOwner.objects.bulk_create(
        [UploadOwner(sha256=sha, owner=owner, owner_token="" if owner else owner_token)
         for sha in set(owned)], ignore_conflicts=True)


def release(shas: Iterable[str]) -> None:
    """Remove the uploads among ``shas`` that no experiment uses any more."""
    from .models import ExperimentUpload, UploadOwner

    for sha in set(shas):
        if not ExperimentUpload.objects.filter(sha256=sha).exists():
            UploadOwner.objects.filter(sha256=sha).delete()
            upload_store().delete(sha)


def disown(sha: str, who) -> bool:
    """The caller deletes an upload (staff: everyone's): their claim goes, and their
    experiments no longer make it usable. The file itself goes once nobody who uploaded those
    bytes keeps it, and then no experiment makes it usable. False when the caller does not own
    it (nothing changes)."""
    from .models import Experiment, ExperimentUpload, UploadOwner
    from .permissions import mine

    claims = UploadOwner.objects.filter(sha256=sha)
    links = ExperimentUpload.objects.filter(sha256=sha)
    if who.is_staff:
        if not claims.exists() and upload_store().info(sha) is None:
            return False
    else:
        claims = claims.filter(mine(who))
        if not claims.exists():
            return False
        links = links.filter(experiment__in=Experiment.objects.filter(mine(who)))
    with transaction.atomic():
        claims.delete()
        links.delete()
        if UploadOwner.objects.filter(sha256=sha).exists():
            return True
        ExperimentUpload.objects.filter(sha256=sha).delete()
    upload_store().delete(sha)
    return True


def _check_any(path: Path, inputs: Iterable[FileInput]) -> tuple[str, CheckedFile]:
    """What the first of the kinds' file inputs whose check takes the file makes of it (its
    ``accepts`` and the check's result); ScenarioError from the last check when none does."""
    size, error = path.stat().st_size, ScenarioError("", "no kind takes uploaded files")
    for spec in inputs:
        try:
            return spec.accepts, _check(spec, path, size)
        except ScenarioError as err:
            error = err
    raise error


def import_upload_folder(directory: Path, model) -> dict[str, int]:
    """Copy ``<sha256>[.swf|.swf.gz|.txt|.txt.gz]`` files of an upload folder into the database.

    ``model`` is the upload model (migration 0004 passes its historical one, which counted
    ``jobs`` and kept no format tag or name). Each file is checked by the kinds' file inputs,
    the first that takes it tagging it. Files already imported are skipped; files that are not
    uploads (other names, content that does not match the name, or that no input takes under
    the current limits) are left alone with a warning. Nothing is deleted: the folder can be
    removed once the import is checked.
    """
    from .kinds import all_kinds

    counts = {"imported": 0, "present": 0, "skipped": 0}
    directory = Path(directory)
    if not directory.is_dir():
        return counts
    inputs = list({spec.check: spec for kind_lab in all_kinds()
                   for spec in kind_lab.inputs}.values())
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
            log.warning("upload %s: content does not match its SHA-256 name; not imported",
                        path)
            counts["skipped"] += 1
            continue
        try:
            accepts, checked = _check_any(path, inputs)
        except ScenarioError as err:
            log.warning("upload %s: %s; not imported", path, err)
            counts["skipped"] += 1
            continue
        fields = {f.name for f in model._meta.get_fields()}
        known = {"records": checked.records, "jobs": checked.records, "accepts": accepts,
                 "name": path.name}
        model.objects.create(sha256=sha, data=compressed(raw), size=len(raw),
                             **{k: v for k, v in known.items() if k in fields})
        counts["imported"] += 1
    return counts
