"""Figure presets (filled in once run times are measured)."""


def register(engine) -> None:
    return None
