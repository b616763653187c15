"""Optional API-key auth: off by default; when on, every route but /healthz needs the key."""

from __future__ import annotations

import pytest

from service.api.settings import Settings

ROUTES = [
    ("post", "/v1/articles", {"articles": [{"title": "x"}]}),
    ("post", "/v1/compare", {"a": {"title": "x"}, "b": {"title": "y"}}),
    ("post", "/v1/dedupe", {"texts": ["x"]}),
    ("get", "/v1/documents/1", None),
    ("delete", "/v1/documents/1", None),
    ("get", "/v1/copy-groups", None),
    ("get", "/v1/copy-groups/1", None),
    ("get", "/v1/clusters", None),
    ("get", "/v1/clusters/1", None),
    ("get", "/metrics", None),
    ("get", "/openapi.json", None),
    ("get", "/docs", None),
]


def call(client, method, path, body, headers=None):
    return getattr(client, method)(path, headers=headers or {}, **({"json": body} if body is not None else {}))


def test_auth_off_by_default(make_client):
    client = make_client()
    for method, path, body in ROUTES:
        assert call(client, method, path, body).status_code != 401, path


@pytest.mark.parametrize("method, path, body", ROUTES)
def test_auth_on_requires_the_key(make_client, method, path, body):
    client = make_client(api_key="s3cret")
    r = call(client, method, path, body)
    assert r.status_code == 401
    assert r.json()["detail"] == "missing API key: send it as 'X-API-Key: <key>' or 'Authorization: Bearer <key>'"
    assert call(client, method, path, body, {"X-API-Key": "wrong"}).json()["detail"] == "invalid API key"
    assert call(client, method, path, body, {"Authorization": "Bearer wrong"}).status_code == 401
    assert call(client, method, path, body, {"X-API-Key": "s3cret"}).status_code not in (401, 403)
    assert call(client, method, path, body, {"Authorization": "Bearer s3cret"}).status_code not in (401, 403)


def test_healthz_stays_public(make_client):
    assert make_client(api_key="s3cret").get("/healthz").status_code == 200


def test_settings_layering(tmp_path):
    cfg = tmp_path / "samestory.toml"
    cfg.write_text('[service]\napi_key = "from-file"\nmax_batch = 7\nport = 9000\n\n[engine]\nwindow_days = 3.0\n')
    s = Settings.load(cfg, env={"SAMESTORY_MAX_BATCH": "9"}, port=9100)
    assert (s.api_key, s.max_batch, s.port) == ("from-file", 9, 9100)  # file < env < flags
    assert s.engine_config().copy.window_days == 3.0
    assert Settings.load(env={"SAMESTORY_API_KEY": " "}).api_key is None  # blank means off, not "empty key"
    assert Settings.load(env={"SAMESTORY_MODEL": "none"}).model is None
    with pytest.raises(ValueError, match="SAMESTORY_MAX_BATCH must be an integer"):
        Settings.load(env={"SAMESTORY_MAX_BATCH": "many"})
    bad = tmp_path / "bad.toml"
    bad.write_text("[service]\napikey = 'x'\n")
    with pytest.raises(ValueError, match=r"unknown \[service\] key .apikey. in .*bad.toml \(did you mean api_key\?\)"):
        Settings.load(bad, env={})
    assert "s3cret" not in str(Settings(db="postgresql://u:s3cret@h/db", api_key="k").public())
