import sys

from . import ENGINE
from .cli import main

sys.exit(main(ENGINE, sys.argv[1:], prog="python -m scheduling.engine"))
