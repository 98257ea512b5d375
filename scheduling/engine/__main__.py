import sys

from simcore.cli import main

from . import ENGINE

sys.exit(main(ENGINE, sys.argv[1:], prog="python -m scheduling.engine"))
