"""Named many-task scenarios (placeholder while developing)."""
from .config import KIND


def register(engine) -> None:
    engine.preset("many-task-small", KIND, params={
        "workload": {"source": "lognormal", "tasks": 3000, "mean_s": 251.5, "cov": 1.0},
        "machine": {"partitions": [16, 32, 64, 128, 256, 512, 1024]},
        "tradeoff": {"ratios": [1, 2, 5, 10, 20]}},
        description="small", source="")
