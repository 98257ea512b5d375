"""From SWF columns to the replayed job set (filtering, nodes, estimates, queue order), for
every kind that replays a trace on a machine of identical nodes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simcore.errors import ScenarioError

from .replay_config import TraceReplayConfig
from .swf import STATUS_COMPLETED, UNKNOWN, SwfHeader

#: Estimates of zero are raised to this (s), the SWF time resolution, so that every job holds
#: its nodes for a positive time in a reservation profile.
MIN_ESTIMATE_S = 1.0


@dataclass(frozen=True)
class Jobs:
    """Replayed jobs in queue order (submit time, then trace order), plus the bookkeeping."""

    job_id: np.ndarray  # SWF job number
    submit: np.ndarray  # s
    run: np.ndarray  # actual run time, s
    estimate: np.ndarray  # s, >= run
    procs: np.ndarray
    nodes: np.ndarray
    machine_nodes: int
    total: int  # job lines considered (after job_limit)
    dropped_status: np.ndarray  # SWF ids of jobs dropped for their status
    dropped_invalid: np.ndarray  # SWF ids with unknown processors or run time
    rejected: np.ndarray  # SWF ids of jobs needing more nodes than the machine has
    estimates_raised: int  # estimates below the run time (raised to it unless asked not to)
    user: np.ndarray | None = None  # SWF user id (-1 unknown)
    requested: np.ndarray | None = None  # whether the estimate came from the requested time

    def __len__(self) -> int:
        return len(self.submit)


def machine_nodes(header: SwfHeader, nodes: int | None, cores_per_node: int) -> int:
    """``nodes`` if given, else the header's MaxNodes, else MaxProcs // cores_per_node."""
    if nodes is not None:
        return int(nodes)
    if header.max_nodes:
        return int(header.max_nodes)
    if header.max_procs and header.max_procs // cores_per_node >= 1:
        return header.max_procs // cores_per_node
    raise ScenarioError("nodes", "the trace header gives neither MaxNodes nor MaxProcs; "
                                 "set nodes (>= 1)")


def _classes(cols: dict[str, np.ndarray], config: TraceReplayConfig, n_machine: int):
    """Per job line: its processors and nodes, and whether its status is kept, whether it can
    be replayed (``valid``) and whether it fits the machine (``fits``): each class implies the
    one before."""
    status = cols["status"]
    run = cols["run_time"]
    procs = np.where(cols["allocated_procs"] != UNKNOWN, cols["allocated_procs"],
                     cols["requested_procs"])
    # Status -1 means "not recorded" (models such as Lublin's): treated as completed.
    ok_status = (status == STATUS_COMPLETED) | (status == UNKNOWN)
    if config.keep_failed:
        ok_status = np.ones(len(status), dtype=bool)
    valid = ok_status & (procs > 0) & (run >= 0)
    nodes = -(-np.maximum(procs, 1) // config.cores_per_node)
    fits = valid & (nodes <= n_machine)
    return procs, nodes, ok_status, valid, fits


#: Why a job line never reaches the queue, as its ``dropped`` decision says (``--explain``).
DROPPED_STATUS = ("its status in the trace is not completed (failed, cancelled or partial): "
                  "only completed jobs are replayed, unless keep_failed")
DROPPED_INVALID = ("its processor count is unknown or 0, or its run time unknown: it cannot be "
                   "replayed")
REJECTED = "it needs more nodes than the machine has"


def load_drops(header: SwfHeader, cols: dict[str, np.ndarray], config: TraceReplayConfig,
               cut: tuple[np.ndarray, str, Callable[[int], dict]] | None = None
               ) -> list[tuple[float, int, str, dict]]:
    """The job lines of ``cols`` that never reach the queue (the ids ``prepare`` lists as
    dropped or rejected), each as its ``dropped`` decision: (submit time, SWF job number,
    reason, numbers), in submit order (then trace order). Only for a run that explains
    itself. ``cut``: a kind's own drop before these classes (swf-preemptive's ``max_procs``):
    its rows of ``cols``, reason and numbers per row; ``cols`` are then the lines before it."""
    if config.job_limit:
        cols = {k: v[: config.job_limit] for k, v in cols.items()}
    n_machine = machine_nodes(header, config.nodes, config.cores_per_node)
    procs, nodes, ok_status, valid, fits = _classes(cols, config, n_machine)
    status, run = cols["status"], cols["run_time"]
    classes = [
        (~ok_status, DROPPED_STATUS, lambda r: {"status": int(status[r])}),
        (ok_status & ~valid, DROPPED_INVALID,
         lambda r: {"procs": int(procs[r]), "run_s": float(run[r])}),
        (valid & ~fits, REJECTED, lambda r: {"nodes": int(nodes[r]), "procs": int(procs[r]),
                                             "machine_nodes": n_machine}),
    ]
    if cut is not None:
        classes = [(mask & ~cut[0], why, numbers) for mask, why, numbers in classes]
        classes.append(cut)
    rows = [(r, why, numbers(r)) for mask, why, numbers in classes
            for r in np.flatnonzero(mask).tolist()]
    submit, ids = cols["submit"], cols["job_id"]
    rows.sort(key=lambda row: (submit[row[0]], row[0]))
    return [(float(submit[r]), int(ids[r]), why, numbers) for r, why, numbers in rows]


def prepare(header: SwfHeader, cols: dict[str, np.ndarray], config: TraceReplayConfig,
            raise_estimates: bool = True) -> Jobs:
    """The replayed jobs of a trace. ``raise_estimates=False`` keeps estimates below the run
    time (a kind that kills jobs at their wall-clock limit needs the user's real limit)."""
    if config.job_limit:
        cols = {k: v[: config.job_limit] for k, v in cols.items()}
    total = len(cols["job_id"])
    n_machine = machine_nodes(header, config.nodes, config.cores_per_node)
    ids = cols["job_id"]
    run = cols["run_time"]
    procs, nodes, ok_status, valid, fits = _classes(cols, config, n_machine)

    keep = np.flatnonzero(fits)
    order = keep[np.argsort(cols["submit"][keep], kind="stable")]
    run_k = run[order].astype(np.float64)
    requested = cols["requested_time"][order]
    from_requested = config.use_requested_time & (requested > 0)
    base = np.where(from_requested, requested, run_k)
    est = base * config.estimate_scale
    raised = est < run_k
    if raise_estimates:
        est = np.maximum(est, run_k)
    est = np.maximum(est, MIN_ESTIMATE_S)
    return Jobs(
        job_id=ids[order].astype(np.int64),
        submit=cols["submit"][order].astype(np.float64),
        run=run_k,
        estimate=est,
        procs=procs[order].astype(np.int64),
        nodes=nodes[order].astype(np.int64),
        machine_nodes=n_machine,
        total=total,
        dropped_status=ids[~ok_status].astype(np.int64),
        dropped_invalid=ids[ok_status & ~valid].astype(np.int64),
        rejected=ids[valid & ~fits].astype(np.int64),
        estimates_raised=int(raised.sum()),
        user=cols["user_id"][order].astype(np.int64),
        requested=np.asarray(from_requested, dtype=bool),
    )
