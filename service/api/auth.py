"""Who is calling: the API keys (one unnamed ``api_key`` and/or named ``api_keys``) and where a
request may carry one: ``X-API-Key``, ``Authorization: Bearer``, or the pages' login cookie.

A reverse proxy that authenticates people itself can add ``X-API-Key`` on their behalf; the
key's name is then who an editor's correction is recorded as (docs/ui.md).

>>> parse_named_keys("alice=k1, bob=k2")
{'k1': 'alice', 'k2': 'bob'}
>>> parse_named_keys("alice")
Traceback (most recent call last):
...
ValueError: api_keys must be 'name=key' pairs separated by commas, got 'alice'
"""

from __future__ import annotations

import re
import secrets
from typing import Any

# The cookie the login form sets (HttpOnly, SameSite=Strict: another site's form cannot post with it).
COOKIE = "samestory_key"
UNNAMED = "api-key"  # the name of the single key set with api_key
ANONYMOUS = "anonymous"  # who, when auth is off

_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


def parse_named_keys(spec: str) -> dict[str, str]:
    """``"alice=KEY1,bob=KEY2"`` as ``{key: name}``; names are short words, keys non-empty and distinct."""
    out: dict[str, str] = {}
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, key = part.partition("=")
        name, key = name.strip(), key.strip()
        if not sep or not key:
            raise ValueError(f"api_keys must be 'name=key' pairs separated by commas, got {part!r}")
        if not _NAME.match(name):
            raise ValueError(f"api_keys: name {name!r} must be 1-64 letters, digits or _.@-")
        if key in out:
            raise ValueError(f"api_keys: the key of {name!r} is also {out[key]!r}'s; keys must differ")
        out[key] = name
    return out


def keys(settings: Any) -> dict[str, str]:
    """Every accepted key with its name; empty when auth is off."""
    out = parse_named_keys(settings.api_keys) if getattr(settings, "api_keys", None) else {}
    if settings.api_key:
        out.setdefault(settings.api_key, UNNAMED)
    return out


def name_of(settings: Any, offered: str | None) -> str | None:
    """The name of the key ``offered`` (compared in constant time), or None when it is no key."""
    if offered is None:
        return None
    found = None
    for key, name in keys(settings).items():
        # compare_digest against every key: the time taken does not say which one nearly matched.
        if secrets.compare_digest(offered.encode("utf-8", "surrogateescape"), key.encode("utf-8")):
            found = name
    return found


def offered_key(api_key: str | None, authorization: str | None, cookie: str | None = None) -> str | None:
    """The key a request offers: ``X-API-Key``, else ``Authorization: Bearer``, else the login cookie.

    >>> offered_key(None, "Bearer k1"), offered_key(None, "Basic x", "k2"), offered_key(None, None)
    ('k1', 'k2', None)
    """
    if api_key is not None:
        return api_key
    if authorization:
        scheme, _, credentials = authorization.partition(" ")
        if scheme.lower() == "bearer" and credentials.strip():
            return credentials.strip()
    return cookie or None


def cookie_value(header: str | None) -> str | None:
    """The login cookie's value from a raw ``Cookie`` header, or None.

    >>> cookie_value("a=1; samestory_key=k9"), cookie_value(None)
    ('k9', None)
    """
    if not header:
        return None
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE and value:
            return value
    return None


def auth_on(settings: Any) -> bool:
    return bool(settings.api_key or getattr(settings, "api_keys", None))
