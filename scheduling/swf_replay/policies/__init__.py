"""The replay policies: each a ``Replay`` subclass that decides what starts in ``schedule``."""

from .conservative import Conservative
from .easy import Easy
from .fcfs import Fcfs

__all__ = ["Conservative", "Easy", "Fcfs"]
