"""Every documented command line prints its help: argparse formats help strings with ``%``, so a
bare percent sign in one of them turns ``--help`` into a traceback."""

import re
import subprocess
import sys

import pytest

from scheduling.engine import ENGINE as SCHEDULING
from simcore.cli import main
from uav.engine import ENGINE as UAV


def _help(engine, argv, capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(engine, argv + ["--help"], prog="prog")
    assert exit_.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("engine", [SCHEDULING, UAV], ids=["scheduling", "uav"])
def test_every_subcommand_prints_its_help(engine, capsys):
    top = _help(engine, [], capsys)
    commands = re.search(r"\{([\w,-]+)\}", top).group(1).split(",")
    assert {"run", "sweep", "presets", "policies"} <= set(commands)
    for command in commands:  # an alias (ch3-sweep) prints its command's usage (sweep)
        assert _help(engine, [command], capsys).startswith("usage: prog ")


@pytest.mark.parametrize("module", ["scheduling.engine", "uav.engine"])
def test_module_entry_point_prints_its_help(module):
    done = subprocess.run([sys.executable, "-m", module, "run", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"usage: python -m {module} run" in done.stdout
