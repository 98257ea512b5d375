"""Named ``swf-replay`` scenarios: library traces."""

from .config import KIND


def register(engine) -> None:
    engine.preset("swf-small", KIND, params={"trace": "lublin_256_small"},
                  description="First 500 jobs of the Lublin 256-node trace (runs in well under "
                              "a second).",
                  source="Parallel Workloads Archive, Lublin-Feitelson model")
    engine.preset("lublin-256", KIND, params={"trace": "lublin_256"},
                  description="Lublin 256-node trace, 10,000 jobs, over-saturated.",
                  source="Parallel Workloads Archive, Lublin-Feitelson model")
    engine.preset("swf-example", KIND, params={"trace": "example_8"},
                  description="Hand-made 16-job trace on 8 nodes with requested times.",
                  source="hetsite trace library")
