"""The editors' pages in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium against the real ``samestory serve`` process.

Loads the demo feed, signs in with a named key, opens a story (issue 17's event level) and checks
its copy groups, their members and reasons, uses the compare box, splits a member off the story,
restarts the service and sees the split stay, then undoes it from the corrections list.
Also reads a story with JavaScript off, and checks Swagger UI and ReDoc render with no network.

Skips where Chromium, chromedriver or selenium is absent, except in CI (``CI=true``, or
``SAMESTORY_REQUIRE_BROWSER=1`` which ``.ci/run`` sets after installing them), where it fails.
With ``SAMESTORY_UI_SCREENSHOTS=docs/ui`` it writes a screenshot of each page there (the ones
docs/ui.md shows).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.server import Server, command
from tests.paths import REPO_ROOT as ROOT

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out

KEY = "ui-test-key-alice"
IN_CI = (os.environ.get("CI", "").lower() in ("1", "true", "yes")
         or os.environ.get("SAMESTORY_REQUIRE_BROWSER", "") == "1")
SHOTS = os.environ.get("SAMESTORY_UI_SCREENSHOTS")
READER_TZ = "Asia/Seoul"
# The flags a root user needs for headless Chromium in a container, and no traffic of its own.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1280,900", "--lang=en-US"]


def _browser_paths() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    try:
        import selenium  # noqa: F401
    except ModuleNotFoundError:
        chromium = None
    if chromium is None or driver is None:
        why = "headless Chromium test needs chromium, chromium-driver (apt) and selenium (the dev extra)"
        if IN_CI:
            pytest.fail(f"{why}; .ci/run installs them")
        pytest.skip(why)
    return chromium, driver


def _driver(chromium: str, driver_path: str, profile: str, *, javascript: bool = True) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    # The browser runs in Seoul time whatever the machine's zone: the pages must show the reader's
    # own zone (ui.js), which the test then checks as +09:00.
    service = DriverService(executable_path=driver_path, env={**os.environ, "TZ": READER_TZ})
    drv = webdriver.Chrome(service=service, options=options)
    drv.set_page_load_timeout(60)
    return drv


@pytest.fixture
def browser() -> Iterator[tuple[str, str]]:
    yield _browser_paths()


def _shot(drv: Any, name: str) -> None:
    """A full-page screenshot into $SAMESTORY_UI_SCREENSHOTS (when set)."""
    if not SHOTS:
        return
    out = Path(SHOTS) if Path(SHOTS).is_absolute() else ROOT / SHOTS
    out.mkdir(parents=True, exist_ok=True)
    height = drv.execute_script("return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)")
    drv.set_window_size(1280, max(600, min(int(height) + 40, 4000)))
    drv.save_screenshot(str(out / f"{name}.png"))
    drv.set_window_size(1280, 900)


def _wait(drv: Any, condition: Any, seconds: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(drv, seconds).until(condition)


def _demo(db: str, log: Path) -> None:
    """``samestory demo``: the bundled sample feed into ``db`` with the bundled model."""
    with log.open("ab") as err:
        subprocess.run([*command(), "demo", "--db", db, "--model", "use"], cwd=ROOT, check=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=err,
                       timeout=300)


class UiServer(Server):
    """The e2e test's server process, with the bundled model (the compare box and the demo's
    translations need it) instead of the cheap passes only."""

    def __init__(self, db: str, log: Path, **env: str) -> None:
        super().__init__(db, log, model="use", **env)


def _story_with(drv: Any, base: str, outlet: str) -> int:
    """The number of the story listing ``outlet`` (found through the page's own outlet filter)."""
    from selenium.webdriver.common.by import By

    drv.get(f"{base}/ui?outlet={outlet}")
    rows = drv.find_elements(By.CSS_SELECTOR, "#stories tbody tr[data-story]")
    assert rows, f"no story lists outlet {outlet}"
    return int(rows[0].get_attribute("data-story"))


def test_editor_reads_compares_splits_and_the_split_survives_a_restart(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    chromium, driver_path = browser
    db = f"sqlite:///{tmp_path / 'ui.db'}"
    log = tmp_path / "server.log"
    _demo(db, log)
    env = {"SAMESTORY_API_KEYS": f"alice={KEY}"}
    server = UiServer(db, log, **env)
    profile = tempfile.mkdtemp(prefix="chromium-", dir=tmp_path)
    drv = _driver(chromium, driver_path, profile)
    try:
        base = server.url
        # Signing in: a page without the key goes to the login form.
        drv.get(f"{base}/ui")
        _wait(drv, ec.presence_of_element_located((By.ID, "key")))
        assert drv.current_url.startswith(f"{base}/ui/login")
        _shot(drv, "login")
        drv.find_element(By.ID, "key").send_keys("wrong")
        drv.find_element(By.CSS_SELECTOR, "form[action='/ui/login'] button").click()
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, ".error")))
        assert "not valid" in drv.find_element(By.CSS_SELECTOR, ".error").text
        drv.find_element(By.ID, "key").send_keys(KEY)
        drv.find_element(By.CSS_SELECTOR, "form[action='/ui/login'] button").click()
        _wait(drv, ec.presence_of_element_located((By.ID, "stories")))
        assert drv.find_element(By.ID, "who").text == "alice"

        # The story list: newest first, every demo story, times as ISO 8601 in the reader's zone (Seoul).
        rows = drv.find_elements(By.CSS_SELECTOR, "#stories tbody tr[data-story]")
        ids = [int(r.get_attribute("data-story")) for r in rows]
        assert len(ids) >= 5 and ids == sorted(ids, reverse=True)
        first_time = drv.find_element(By.CSS_SELECTOR, "#stories time")
        assert first_time.text[:4] == "2026" and "T" in first_time.text and first_time.text.endswith("+09:00")
        _shot(drv, "stories")

        # A story of several copy groups (the Fed's two reports: a changed figure is another report
        # of the same event), with why each group is in it.
        fed = _story_with(drv, base, "example-news")
        drv.find_element(By.CSS_SELECTOR, f"#stories a[href^='/ui/stories/{fed}']").click()
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, "section.group")))
        assert len(drv.find_elements(By.CSS_SELECTOR, "section.group")) >= 2
        reasons = [e.text for e in drv.find_elements(By.CSS_SELECTOR, ".story-reason")]
        assert reasons[0].startswith("new story") and any(r.startswith("story: joined story") for r in reasons[1:])

        # A copy group: the syndicated pair and the rewrite, with how each joined the group and why.
        story = _story_with(drv, base, "v.daum.net")
        drv.get(f"{base}/ui/stories/{story}")
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, "section.group")))
        groups = drv.find_elements(By.CSS_SELECTOR, "section.group")
        copies = next(g for g in groups if "v.daum.net" in g.text)
        assert len(copies.find_elements(By.CSS_SELECTOR, "tr.member")) == 3
        text = copies.text
        assert "exact: same normalised title as document" in text  # the sample feed has titles only
        assert "ngram: weighted 3-gram Jaccard" in text
        assert "subject: passed" in text  # the guards' verdicts are shown
        rep = copies.find_element(By.CSS_SELECTOR, ".rep").text
        assert "Why: newer" in rep and "first member" in rep  # the reason, and the history behind it
        members_before = len(drv.find_elements(By.CSS_SELECTOR, "tr.member"))
        _shot(drv, "story")

        # A story in two languages shows its title in the reader's language.
        both = _story_with(drv, base, "koreaherald")
        drv.get(f"{base}/ui/stories/{both}?hl=en")
        assert drv.find_element(By.TAG_NAME, "h1").text.startswith("Samsung Electronics")
        drv.get(f"{base}/ui/stories/{both}?hl=ko")
        assert drv.find_element(By.TAG_NAME, "h1").text.startswith("삼성전자")
        assert "embedding" in drv.find_element(By.TAG_NAME, "main").text
        _shot(drv, "story-crosslingual")

        # The compare box answers in place.
        drv.get(f"{base}/ui/compare")
        drv.find_element(By.ID, "a").send_keys("연준, 기준금리 0.25%p 인상")
        drv.find_element(By.ID, "b").send_keys("연준, 기준금리 0.5%p 인상")
        drv.find_element(By.CSS_SELECTOR, "#compare button").click()
        _wait(drv, ec.presence_of_element_located((By.ID, "verdict")))
        assert drv.current_url.endswith("/ui/compare")
        assert drv.find_element(By.ID, "verdict").text.startswith("DIFFERENT")
        assert "quantity: 0.25%p != 0.5%p" in drv.find_element(By.ID, "result").text
        _shot(drv, "compare")

        # Split the syndicator's copy off the story (the page asks first).
        drv.get(f"{base}/ui/stories/{story}")
        daum_row = next(r for r in drv.find_elements(By.CSS_SELECTOR, "tr.member") if "v.daum.net" in r.text)
        daum_doc = int(daum_row.get_attribute("data-doc"))
        daum_row.find_element(By.CSS_SELECTOR, "button.split").click()
        _wait(drv, ec.alert_is_present()).accept()
        _wait(drv, ec.presence_of_element_located((By.ID, "notice")))
        assert f"document {daum_doc} split off story {story}" in drv.find_element(By.ID, "notice").text
        new_story = int(drv.current_url.split("/ui/stories/")[1].split("?")[0])
        assert new_story != story and drv.find_element(By.ID, "size").text == "1"
        assert drv.find_element(By.CSS_SELECTOR, ".story-reason").text.startswith(f"editor alice split document {daum_doc}")
        assert "editor alice split document" in drv.find_element(By.TAG_NAME, "main").text
        _shot(drv, "split")
        drv.get(f"{base}/ui/corrections")
        assert "alice" in drv.find_element(By.ID, "corrections").text
        _shot(drv, "corrections")

        # The evaluation page: its figures load from the service.
        drv.get(f"{base}/ui/eval")
        images = drv.find_elements(By.CSS_SELECTOR, "main img")
        assert images
        _wait(drv, lambda d: all(d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0",
                                                  img) for img in images[:3]))
        _shot(drv, "eval")

        # Swagger UI and ReDoc render from the service's own assets (the browser has no network).
        drv.get(f"{base}/docs")
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, ".swagger-ui .info .title")))
        assert "samestory" in drv.find_element(By.CSS_SELECTOR, ".swagger-ui .info .title").text
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, ".opblock")))
        _shot(drv, "swagger")
        drv.get(f"{base}/redoc")
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, ".api-content")))
        _wait(drv, lambda d: "samestory" in d.find_element(By.CSS_SELECTOR, ".api-content").text)
        _shot(drv, "redoc")

        # Restart the service on the same store: the split is still there.
        server.stop()
        server = UiServer(db, log, **env)
        base = server.url
        drv.get(f"{base}/ui/stories/{story}")  # a new port: the cookie is per host, so sign in again
        if "/ui/login" in drv.current_url:
            drv.find_element(By.ID, "key").send_keys(KEY)
            drv.find_element(By.CSS_SELECTOR, "form[action='/ui/login'] button").click()
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, "section.group")))
        docs = [int(r.get_attribute("data-doc")) for r in drv.find_elements(By.CSS_SELECTOR, "tr.member")]
        assert len(docs) == members_before - 1 and daum_doc not in docs
        drv.get(f"{base}/ui/stories/{new_story}")
        assert [int(r.get_attribute("data-doc")) for r in drv.find_elements(By.CSS_SELECTOR, "tr.member")] == [daum_doc]

        # Undo the split from the corrections list (ninth tour: there was no way back): the page asks
        # first, the correction stays listed as withdrawn, and the copy rejoins its story.
        drv.get(f"{base}/ui/corrections")
        row = next(r for r in drv.find_elements(By.CSS_SELECTOR, "#corrections tbody tr") if "split" in r.text)
        row.find_element(By.NAME, "note").send_keys("the same release after all")
        row.find_element(By.CSS_SELECTOR, "form.undo button").click()
        _wait(drv, ec.alert_is_present()).accept()
        _wait(drv, ec.presence_of_element_located((By.ID, "notice")))
        assert "withdrawn (split of document" in drv.find_element(By.ID, "notice").text
        row = drv.find_element(By.CSS_SELECTOR, "#corrections tr.withdrawn")
        assert "withdrawn by alice" in row.text and "the same release after all" in row.text
        assert not row.find_elements(By.CSS_SELECTOR, "form.undo")
        drv.get(f"{base}/ui/stories/{story}")
        docs = [int(r.get_attribute("data-doc")) for r in drv.find_elements(By.CSS_SELECTOR, "tr.member")]
        assert len(docs) == members_before and daum_doc in docs
        drv.quit()

        # With JavaScript off the pages read the same (server-rendered): a fresh browser, the key in the form.
        drv = _driver(chromium, driver_path, tempfile.mkdtemp(prefix="chromium-nojs-", dir=tmp_path), javascript=False)
        drv.get(f"{base}/ui/login?next=/ui/stories/{story}")
        drv.find_element(By.ID, "key").send_keys(KEY)
        drv.find_element(By.CSS_SELECTOR, "form[action='/ui/login'] button").click()
        _wait(drv, ec.presence_of_element_located((By.CSS_SELECTOR, "section.group")))
        assert len(drv.find_elements(By.CSS_SELECTOR, "tr.member")) == members_before
        assert "ngram: weighted 3-gram Jaccard" in drv.find_element(By.TAG_NAME, "main").text
        stamp = drv.find_element(By.CSS_SELECTOR, "time").text  # the server's ISO 8601, not rewritten
        assert stamp[:4] == "2026" and "T" in stamp
        drv.get(f"{base}/ui/compare")
        drv.find_element(By.ID, "a").send_keys("FED RAISES RATES")
        drv.find_element(By.ID, "b").send_keys("Fed raises rates")
        drv.find_element(By.CSS_SELECTOR, "#compare button").click()  # a plain form post without scripts
        _wait(drv, ec.presence_of_element_located((By.ID, "verdict")))
        assert drv.find_element(By.ID, "verdict").text.startswith("SAME")
        _shot(drv, "compare-no-js")
    finally:
        drv.quit()
        server.stop()


if __name__ == "__main__":  # pragma: no cover - regenerate the screenshots by hand
    sys.exit(pytest.main([__file__, "-q"]))
