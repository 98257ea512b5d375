"""Clusters of identical nodes and the P-states they share (clusters, nodes, cores to P-states
(ch. 3 spec §1.1-1.2))."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import SystemConfig


@dataclass(frozen=True)
class System:
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    cores_per_node: np.ndarray  # (C,) int
    nodes: np.ndarray  # (C,) int
    power_factors: np.ndarray  # (P,) base power factor f_p per P-state

    @classmethod
    def from_config(cls, cfg: SystemConfig) -> System:
        return cls(
            names=tuple(c.name for c in cfg.clusters),
            kinds=tuple(c.kind for c in cfg.clusters),
            cores_per_node=np.array([c.cores_per_node for c in cfg.clusters], dtype=np.int64),
            nodes=np.array([c.nodes for c in cfg.clusters], dtype=np.int64),
            power_factors=np.array(cfg.pstate_power_factors, dtype=float),
        )

    @property
    def n_clusters(self) -> int:
        return len(self.names)

    @property
    def n_pstates(self) -> int:
        return len(self.power_factors)

    @property
    def cores(self) -> np.ndarray:
        return self.cores_per_node * self.nodes

    @property
    def general(self) -> list[int]:
        return [i for i, k in enumerate(self.kinds) if k == "general"]

    @property
    def special(self) -> list[int]:
        return [i for i, k in enumerate(self.kinds) if k == "special"]

    def public(self) -> list[dict]:
        return [{"name": n, "kind": k, "nodes": int(nd), "cores_per_node": int(c)}
                for n, k, nd, c in zip(self.names, self.kinds, self.nodes, self.cores_per_node,
                                       strict=True)]
