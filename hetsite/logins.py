"""Password guessing is rate limited: after ``HETSITE_LOGIN_RATE`` failed logins for one account
name, or from one client address, every further attempt is refused for the window, the right
password included, on the login page and the admin's alike (counts in the shared cache).

Counting per account stops a guesser who rotates addresses; counting per address stops one who
rotates account names. The price is that anyone can keep an account name locked for the
window; a site with more at stake than this lab's would add a second factor instead.
"""

from __future__ import annotations

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import PermissionDenied

from .throttles import Limit, client_address


def _keys(request, username) -> list[str]:
    keys = [f"account:{str(username).lower()[:150]}"] if username else []
    if request is not None and request.META.get("REMOTE_ADDR"):
        keys.append(f"addr:{client_address(request)}")
    return keys


class RateLimitedModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        keys, limit = _keys(request, username), Limit("login")
        for key in keys:
            denied = limit.over(key)
            if denied is not None:
                if request is not None:
                    request.hetsite_login_refused = denied
                raise PermissionDenied(denied.message)  # ends authenticate(): no other backend
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            for key in keys:
                limit.add(key)
        return user


class _SaysWhy:
    """A refused login says it was refused for too many failures, not a wrong password."""

    def get_invalid_login_error(self):
        denied = getattr(self.request, "hetsite_login_refused", None)
        if denied is not None:
            return forms.ValidationError(denied.message, code="throttled")
        return super().get_invalid_login_error()


class LoginForm(_SaysWhy, AuthenticationForm):
    pass


class AdminLoginForm(_SaysWhy, AdminAuthenticationForm):
    pass
