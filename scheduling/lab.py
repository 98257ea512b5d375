"""The scheduling kinds' lab faces, each in its kind's folder, in the order the lab lists them."""

import importlib

for _folder in ("parallel", "replay", "pbb", "serial", "vos", "grid", "manytask"):
    importlib.import_module(f"scheduling.engine.{_folder}.lab")
