"""Who may see and change an experiment; the pages and the API ask here and nowhere else.

Ownership: a logged-in creator owns an experiment through ``owner``; an anonymous creator
through a random token kept in a signed cookie (``OWNER_COOKIE``) and stored in
``owner_token``. Logging in later adopts every experiment of that token (:func:`adopt`).

Visibility: ``unlisted`` (the default) is readable by anyone with the link and listed only for
its owner; ``public`` is listed for everyone; ``private`` is readable by its owner and staff
only (anyone else gets a 404, so its existence is not revealed). Only the owner and staff may
rename, annotate, cancel or delete.

Scenarios and uploads follow their experiments. A saved scenario has an owner the same way; it
is listed for its owner and with the public experiments that use it, and readable wherever an
experiment that uses it is. An upload may be used by its owners and by whoever may read an
experiment that uses it (``hetsite.uploads``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.db.models import Q, QuerySet

from .models import Experiment, ExperimentUpload, Scenario, UploadOwner, Visibility

OWNER_COOKIE = "hetsite_owner"
OWNER_SALT = "hetsite.owner-token"
OWNER_COOKIE_AGE = 5 * 365 * 24 * 3600


ANONYMOUS, USER, STAFF = "anonymous", "user", "staff"


@dataclass(frozen=True)
class Account:
    """What a submission is charged to: ``key`` names the queue share and the caps
    (``user:<id>``, or ``anon:<digest of the client address>`` for anonymous callers, whose
    cookie is theirs to throw away), ``tier`` picks the budget (``hetsite.services.admission``).
    """

    key: str
    tier: str


# Management commands and the admin's own actions: trusted, charged to the site.
SITE = Account("site", STAFF)


@dataclass
class Viewer:
    """The caller of a request: a user (possibly anonymous), an anonymous-owner token and the
    client's address (as the throttle sees it)."""

    user: object
    token: str = ""
    new_token: bool = False
    address: str = ""

    def account(self) -> Account:
        if self.user_id is not None:
            return Account(f"user:{self.user_id}", STAFF if self.is_staff else USER)
        digest = hmac.new(settings.SECRET_KEY.encode(), self.address.encode(),
                          hashlib.sha256).hexdigest()[:24]
        return Account(f"anon:{digest}", ANONYMOUS)

    @property
    def is_staff(self) -> bool:
        return bool(getattr(self.user, "is_staff", False))

    @property
    def user_id(self):
        return self.user.pk if getattr(self.user, "is_authenticated", False) else None

    def owner_fields(self) -> dict:
        """The ownership columns of a new experiment: the user, else a (new) cookie token."""
        if self.user_id is not None:
            return {"owner": self.user, "owner_token": ""}
        if not self.token:
            self.token = secrets.token_urlsafe(24)
            self.new_token = True
        return {"owner": None, "owner_token": self.token}


def viewer(request) -> Viewer:
    """The request's viewer (cached on the request, so a token issued here is set once)."""
    # A DRF Request wraps the HttpRequest the middleware sees: cache on the inner one.
    http = getattr(request, "_request", request)
    cached = getattr(http, "_hetsite_viewer", None)
    if cached is None:
        try:
            token = http.get_signed_cookie(OWNER_COOKIE, default="", salt=OWNER_SALT)
        except (signing.BadSignature, KeyError):
            token = ""
        from .throttles import client_address

        cached = Viewer(getattr(request, "user", None), token or "",
                        address=client_address(http))
        http._hetsite_viewer = cached
    else:
        cached.user = getattr(request, "user", cached.user)  # DRF may authenticate later
    return cached


def set_owner_cookie(request, response) -> bool:
    """Send the anonymous-owner cookie when this request issued a token (True if it did)."""
    found = getattr(request, "_hetsite_viewer", None)
    if found is None or not found.new_token:
        return False
    response.set_signed_cookie(OWNER_COOKIE, found.token, salt=OWNER_SALT,
                               max_age=OWNER_COOKIE_AGE, httponly=True, samesite="Lax",
                               secure=request.is_secure())
    return True


def is_owner(who: Viewer, experiment: Experiment) -> bool:
    if who.user_id is not None and experiment.owner_id == who.user_id:
        return True
    return bool(who.token) and experiment.owner_token == who.token


def can_view(who: Viewer, experiment: Experiment) -> bool:
    if experiment.visibility != Visibility.PRIVATE:
        return True
    return who.is_staff or is_owner(who, experiment)


def can_edit(who: Viewer, experiment: Experiment) -> bool:
    """Staff or the owner (user or cookie token); nobody else, and never an ownerless row."""
    return who.is_staff or is_owner(who, experiment)


def mine(who: Viewer) -> Q:
    q = Q(pk__in=[])
    if who.user_id is not None:
        q |= Q(owner_id=who.user_id)
    if who.token:
        q |= Q(owner_token=who.token)
    return q


def listable(who: Viewer, qs: QuerySet[Experiment]) -> QuerySet[Experiment]:
    """What the viewer may see in lists: public experiments and their own (staff: all)."""
    if who.is_staff:
        return qs
    return qs.filter(Q(visibility=Visibility.PUBLIC) | mine(who))


def readable(who: Viewer, qs: QuerySet[Experiment]) -> QuerySet[Experiment]:
    """What the viewer may open by id: everything but other people's private experiments."""
    if who.is_staff:
        return qs
    return qs.filter(~Q(visibility=Visibility.PRIVATE) | mine(who))


def listable_scenarios(who: Viewer, qs: QuerySet[Scenario]) -> QuerySet[Scenario]:
    """Presets, the viewer's own scenarios and those of experiments the viewer may list."""
    return _scenarios_through(who, qs, listable)


def readable_scenarios(who: Viewer, qs: QuerySet[Scenario]) -> QuerySet[Scenario]:
    """What the viewer may open by id: presets, their own, and any an experiment they may
    read uses."""
    return _scenarios_through(who, qs, readable)


def _scenarios_through(who: Viewer, qs: QuerySet[Scenario], experiments) -> QuerySet[Scenario]:
    if who.is_staff:
        return qs
    seen = experiments(who, Experiment.objects.all())
    return qs.filter(Q(is_preset=True) | mine(who) | Q(experiments__in=seen)).distinct()


def usable_uploads(who: Viewer, shas: set[str]) -> set[str]:
    """Those of ``shas`` the viewer may name in a scenario: uploads they own, and uploads of
    experiments they may read (the SHA-256 is shown only where such an experiment is)."""
    if who.is_staff or not shas:
        return set(shas)
    owned = UploadOwner.objects.filter(mine(who), sha256__in=shas)
    seen = ExperimentUpload.objects.filter(sha256__in=shas,
                                           experiment__in=readable(who, Experiment.objects.all()))
    return (set(owned.values_list("sha256", flat=True))
            | set(seen.values_list("sha256", flat=True)))


def adopt(user, token: str) -> int:
    """Give a user the experiments, scenarios and uploads created anonymously with ``token``;
    returns how many experiments."""
    if not token or user is None or not user.is_authenticated:
        return 0
    Scenario.objects.filter(owner_token=token, owner__isnull=True).update(owner=user,
                                                                          owner_token="")
    claims = UploadOwner.objects.filter(owner_token=token)
    # Uploads the user already owns keep that row; the token's duplicate goes.
    claims.filter(sha256__in=UploadOwner.objects.filter(owner=user).values("sha256")).delete()
    claims.update(owner=user, owner_token="")
    return Experiment.objects.filter(owner_token=token, owner__isnull=True).update(
        owner=user, owner_token="", account=f"user:{user.pk}")
