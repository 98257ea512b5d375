import sys

from simcore.cli import main

from . import ENGINE
from .policies import with_flag

ENGINE.policy_flag("--preemption", help="use the policy's preemption variant (NAME+p)",
                   transform=lambda name: with_flag(name, "p"))
ENGINE.policy_flag("--filtering", help="use the policy's filtering variant (NAME+f)",
                   transform=lambda name: with_flag(name, "f"))

sys.exit(main(ENGINE, sys.argv[1:], prog="python -m uav.engine"))
