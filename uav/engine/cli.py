"""The UAV kind's shorthand for ``sweep``: the chapter's scenario-set experiments (small scenario
sets to experiments and metrics (ch. 5 spec §6.6-7)).

``python -m uav.engine sweep --axis energy --scenarios 200 --policies meta,meta+p`` runs the
small baseline with the axis' values (the large set with ``--large``), draws fresh missions at
every point (new scenarios per sweep point, ch. 5 spec A26), runs Random on every mission as the
reference, and prints each policy's mean per-mission % increase in surveillance value over
Random with its 95% CI (missions where Random earns 0 left out, percent increase when Random earns 0
(ch. 5 spec A23)). It is the generic ``sweep`` with its options filled in.
"""

from __future__ import annotations

from simcore.references import spell

from .presets import BASELINE, LARGE_SCALE, SWEEPS

AXES = ("baseline", *SWEEPS)
# fresh missions for every sweep point (new scenarios per sweep point (ch. 5 spec A26))
SEED_STRIDE = 1_000_000
DEFAULT_POLICIES = "rbs,max-value,max-vpt,max-vpe,meta,meta+p,meta+f,meta+pf"


def axis_values(axis: str, large: bool) -> tuple[str, list[float]]:
    """The parameter an axis sweeps and its values (the baseline's among them)."""
    field, _, values = SWEEPS[axis]
    scale = 10.0 if axis == "events" and large else LARGE_SCALE.get(axis, 1) if large else 1
    return field, [float(v) * scale for v in sorted((BASELINE[axis], *values))]


def add_arguments(parser) -> None:
    group = parser.add_argument_group(spell("UAV scenario sets (spec ch5 §6.6-§7)", "uav"))
    group.add_argument("--axis", choices=AXES,
                       help="sweep one of the chapter's axes on the small (or --large) set")
    group.add_argument("--large", action="store_true",
                       help=spell("the large set (spec ch5 §6.7)", "uav"))
    group.add_argument("--scenarios", type=int, default=100, help="missions per sweep point")
    group.add_argument("--seed", type=int, default=0, help="first mission seed")
    group.add_argument("--same-missions", action="store_true",
                       help="reuse the same seeds at every point (the alternative reading "
                            "of spec ch5 A26)")


def translate(args) -> None:
    if args.axis is None:
        return
    args.preset = "large" if args.large else "small-baseline"
    if args.axis != "baseline":
        field, values = axis_values(args.axis, args.large)
        args.vary = [*args.vary, f"{field}={','.join(f'{v:g}' for v in values)}"]
    args.trials, args.first_seed = args.scenarios, args.seed
    args.seed_stride = 0 if args.same_missions else SEED_STRIDE
    if args.policies == "all":
        args.policies = DEFAULT_POLICIES
    args.set = [*args.set, "compare_random=false"]
    args.baseline, args.relative = "random", True
    args.metrics = args.metrics or "value"


def register(engine) -> None:
    engine.sweep_options(add_arguments=add_arguments, translate=translate)
