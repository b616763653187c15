import pytest

from index.urls import InvalidUrlError, UrlRules

RULES = UrlRules.default()


def test_reviewed_host_drops_tracking_only():
    assert RULES.canonicalize("https://release.example.org/release?utm_source=rss") == "https://release.example.org/release"
    assert RULES.canonicalize("https://release.example.org/release?utm_source=rss&id=7") == \
        "https://release.example.org/release?id=7"


def test_unknown_host_keeps_everything_identity_may_hide_in():
    # seed 002: /report?id=2025 and /report?id=2026 are different reports
    a = RULES.canonicalize("https://reports.example.net/report?id=2025")
    b = RULES.canonicalize("https://reports.example.net/report?id=2026")
    assert a != b
    assert RULES.canonicalize("https://unknown.example/a?utm_source=rss").endswith("?utm_source=rss")
    assert RULES.canonicalize("https://unknown.example/app#story-1").endswith("#story-1")
    assert RULES.canonicalize("https://unknown.example/News") != RULES.canonicalize("https://unknown.example/news")
    assert RULES.canonicalize("https://unknown.example/news/") != RULES.canonicalize("https://unknown.example/news")


def test_always_safe_normalisation():
    assert RULES.canonicalize("HTTPS://Example.COM:443/A") == "https://example.com/A"
    assert RULES.canonicalize("http://example.com:8080/a") == "http://example.com:8080/a"
    assert RULES.canonicalize("https://example.com") == "https://example.com/"


@pytest.mark.parametrize("bad", ["", "not a url", "ftp://example.com/x", "https:///nohost", "javascript:alert(1)",
                                 "https://exa mple.com/", "https://user:pw@example.com/"])
def test_invalid_urls_are_rejected(bad):
    with pytest.raises(InvalidUrlError):
        RULES.canonicalize(bad)


def test_user_rules_extend_the_packaged_ones(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[[host]]\nhost = "*.mysite.kr"\ndrop_params = ["ref"]\n\n[outlets]\nsyndicators = ["agg.example"]\n')
    rules = RULES.merged(UrlRules.from_file(f))
    assert rules.canonicalize("https://news.mysite.kr/a?ref=x&id=1") == "https://news.mysite.kr/a?id=1"
    assert rules.is_syndicator("https://agg.example/x")
    assert rules.is_syndicator("https://v.daum.net/v/1")


def test_outlet_classes():
    assert RULES.is_syndicator("https://v.daum.net/v/20261120091500123")
    assert not RULES.is_syndicator("https://www.nbnnews.co.kr/news/1")
    assert RULES.is_redirect("https://news.google.com/rss/articles/CBMi")
