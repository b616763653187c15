"""URL canonicalisation (seed 002): a document is (channel, canonical URL).

Only *reviewed* per-host rules may drop query parameters. An unknown host keeps its query,
its fragment, its path case and its trailing slash: ``/report?id=2025`` and ``/report?id=2026``
are different reports, ``/app#story-1`` may be a different screen of a client-routed site,
and ``/News`` is not known to be ``/news``. What is always safe (RFC 3986 section 6.2.2) is
done everywhere: lower-case scheme and host, drop the default port, IDNA-encode the host.

>>> rules = UrlRules.default()
>>> rules.canonicalize("HTTPS://Example.com:443/report?id=2025")
'https://example.com/report?id=2025'
>>> rules.canonicalize("https://release.example.org/v2?utm_source=rss&utm_medium=feed")
'https://release.example.org/v2'
>>> rules.canonicalize("ftp://example.com/x")
Traceback (most recent call last):
...
index.urls.InvalidUrlError: URL scheme must be http or https, got 'ftp': 'ftp://example.com/x'
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


class InvalidUrlError(ValueError):
    """A URL that cannot identify a document (bad scheme, no host, control characters)."""


@dataclass(frozen=True)
class HostRule:
    """A reviewed rule for one host pattern: which query parameters carry no identity."""

    host: str
    drop_params: frozenset[str] = frozenset()
    drop_fragment: bool = False
    reviewed: str = ""

    def matches(self, host: str) -> bool:
        return fnmatch.fnmatchcase(host, self.host)


@dataclass(frozen=True)
class UrlRules:
    """Per-host canonicalisation rules plus the host lists the representative rule needs."""

    hosts: tuple[HostRule, ...] = ()
    syndicators: frozenset[str] = frozenset()
    redirectors: frozenset[str] = frozenset()
    extra: dict[str, object] = field(default_factory=dict)

    @classmethod
    def default(cls) -> UrlRules:
        """The packaged, reviewed rules (``service/rules/urls.toml``)."""
        text = resources.files("service.rules").joinpath("urls.toml").read_text("utf-8")
        return cls.from_toml(text)

    @classmethod
    def from_file(cls, path: Path) -> UrlRules:
        return cls.from_toml(Path(path).read_text("utf-8"))

    @classmethod
    def from_toml(cls, text: str) -> UrlRules:
        data = tomllib.loads(text)
        hosts = []
        for i, entry in enumerate(data.get("host", [])):
            if "host" not in entry:
                raise ValueError(f"[[host]] entry {i} has no 'host' key")
            hosts.append(
                HostRule(
                    host=str(entry["host"]).lower(),
                    drop_params=frozenset(str(p) for p in entry.get("drop_params", [])),
                    drop_fragment=bool(entry.get("drop_fragment", False)),
                    reviewed=str(entry.get("reviewed", "")),
                )
            )
        outlets = data.get("outlets", {})
        return cls(
            hosts=tuple(hosts),
            syndicators=frozenset(h.lower() for h in outlets.get("syndicators", [])),
            redirectors=frozenset(h.lower() for h in outlets.get("redirectors", [])),
        )

    def merged(self, other: UrlRules) -> UrlRules:
        """These rules with ``other``'s added (user rules on top of the packaged ones)."""
        return UrlRules(
            hosts=other.hosts + self.hosts,
            syndicators=self.syndicators | other.syndicators,
            redirectors=self.redirectors | other.redirectors,
        )

    def rule_for(self, host: str) -> HostRule | None:
        for rule in self.hosts:
            if rule.matches(host):
                return rule
        return None

    def canonicalize(self, url: str) -> str:
        """The canonical form of ``url``; raises :class:`InvalidUrlError` when it is not usable."""
        if not isinstance(url, str):
            raise InvalidUrlError(f"URL must be a string, got {type(url).__name__}")
        raw = url.strip()
        if not raw:
            raise InvalidUrlError("URL is empty")
        if any(ord(ch) < 32 or ch in " <>\"" for ch in raw):
            raise InvalidUrlError(f"URL contains spaces or control characters: {raw!r}")
        try:
            parts = urlsplit(raw)
            port = parts.port
        except ValueError as exc:
            raise InvalidUrlError(f"URL cannot be parsed: {raw!r} ({exc})") from exc
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS:
            raise InvalidUrlError(f"URL scheme must be http or https, got {scheme!r}: {raw!r}")
        host = (parts.hostname or "").rstrip(".")
        if not host:
            raise InvalidUrlError(f"URL has no host: {raw!r}")
        try:
            host = host.encode("idna").decode("ascii").lower()
        except UnicodeError as exc:
            raise InvalidUrlError(f"URL host is not a valid domain name: {host!r}") from exc
        netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
        if parts.username or parts.password:
            raise InvalidUrlError(f"URL must not carry credentials: {raw!r}")
        path = parts.path or "/"
        query, fragment = parts.query, parts.fragment
        rule = self.rule_for(host)
        if rule is not None:
            if rule.drop_params and query:
                kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True)
                        if not any(fnmatch.fnmatchcase(k, p) for p in rule.drop_params)]
                # Order is kept: on an unreviewed parameter order may be meaningful.
                query = urlencode(kept, doseq=True)
            if rule.drop_fragment:
                fragment = ""
        return urlunsplit((scheme, netloc, path, query, fragment))

    def host_of(self, url: str | None) -> str:
        if not url:
            return ""
        try:
            return (urlsplit(url).hostname or "").lower()
        except ValueError:
            return ""

    def _in(self, host: str, patterns: frozenset[str]) -> bool:
        return any(fnmatch.fnmatchcase(host, p) for p in patterns)

    def is_syndicator(self, url: str | None, source: str | None = None) -> bool:
        """Portals and aggregators that republish other outlets' stories (seed 000 rank 1)."""
        host = self.host_of(url)
        src = (source or "").lower()
        return (bool(host) and self._in(host, self.syndicators)) or (bool(src) and self._in(src, self.syndicators))

    def is_redirect(self, url: str | None) -> bool:
        """Opaque redirect links that hide the original domain (seed 000 rank 2)."""
        host = self.host_of(url)
        return bool(host) and self._in(host, self.redirectors)
