"""Who may change an experiment; the pages and the API ask here and nowhere else."""

from __future__ import annotations


def can_edit(user, experiment) -> bool:
    """Staff, or the logged-in owner; experiments without an owner are editable by any user."""
    if not user.is_authenticated:
        return False
    return user.is_staff or experiment.owner_id in (None, user.pk)
