"""The labelling page in a real headless browser: Debian's Chromium driven by Selenium through
the system chromedriver (nothing downloaded). Answers are typed with the keys 1/2/d, the page is
reloaded, and labels.jsonl, the counts and `calibrate`'s exact figures must survive."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from calibration_fakes import graded_workspace

CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (dev extra)")

pytestmark = pytest.mark.skipif(
    not CHROMEDRIVER.is_file() or not Path(CHROMIUM).is_file(),
    reason="needs Debian's chromium and chromium-driver (make test installs them as root: "
    "apt-get install -y chromium chromium-driver)",
)

# The human's truth: the grader is right except on these three items.
HUMAN_FLIPS = {
    ("with_skill", "alpha", "1", "The poem is about rain"),  # grader pass, human fail
    ("baseline", "beta", "1", "It gives an example"),  # grader pass, human fail
    ("baseline", "alpha", "3", "The poem has three lines"),  # grader fail, human pass
}


def human_says(arm: str, case: str, run: str, expectation: str) -> bool:
    from calibration_fakes import EXPECTATIONS, grader_says

    number = EXPECTATIONS[case].index(expectation) + 1
    truth = grader_says(arm, case, int(run), number)
    return not truth if (arm, case, run, expectation) in HUMAN_FLIPS else truth


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    skill, space = graded_workspace(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillbench", "label", str(skill), "--labeler", "ann"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.stderr else ""
    try:
        yield url, skill, space.root
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0  # SIGTERM stops it cleanly


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # selenium-manager must never download a driver
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-proxy-server", "--disable-background-networking", "--no-first-run",
                "--disable-component-update", "--disable-sync", "--disable-default-apps",
                "--disable-features=Translate,OptimizationHints,MediaRouter"):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _wait_ready(driver: object, previous: str | None = None) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d: object) -> bool:
        body = d.find_element("tag name", "body")  # type: ignore[attr-defined]
        if body.get_attribute("data-ready") != "1":
            return False
        return previous is None or body.get_attribute("data-item") != previous

    WebDriverWait(driver, 20).until(ready)


def _shown(driver: object) -> tuple[str, str, str, str, str]:
    import re

    text = driver.find_element("id", "transcript").text  # type: ignore[attr-defined]
    arm, case, run = re.search(r"MARK (\w+)/(\w+)/(\d)", text).groups()  # type: ignore[union-attr]
    expectation = driver.find_element("id", "expectation").text  # type: ignore[attr-defined]
    item = driver.find_element("tag name", "body").get_attribute("data-item")  # type: ignore[attr-defined]
    return arm, case, run, expectation, item


def _count(driver: object, name: str) -> int:
    return int(driver.find_element("id", f"n-{name}").text)  # type: ignore[attr-defined]


def _press(driver: object, key: str) -> None:
    driver.find_element("tag name", "body").send_keys(key)  # type: ignore[attr-defined]


def test_typed_labels_survive_a_reload_and_calibrate_exactly(
    page: tuple[str, Path, Path], browser: object
) -> None:
    url, skill, root = page
    browser.get(url)  # type: ignore[attr-defined]
    _wait_ready(browser)
    assert _count(browser, "total") == 24 and _count(browser, "remaining") == 24
    page_text = browser.find_element("tag name", "body").text  # type: ignore[attr-defined]
    assert "<script>alert(1)</script>" in page_text  # shown as text, not run
    assert "<b>rain</b>" in page_text
    # blind: no arm name outside the (fake's) transcript marker, no verdict, no run folder
    outside = page_text.replace(browser.find_element("id", "transcript").text, "")  # type: ignore[attr-defined]
    assert "with_skill" not in outside and "baseline" not in outside and "runs/" not in outside

    deferred = _shown(browser)[4]
    _press(browser, "d")
    _wait_ready(browser, deferred)
    assert _count(browser, "deferred") == 1
    for _ in range(10):
        arm, case, run, expectation, item = _shown(browser)
        _press(browser, "1" if human_says(arm, case, run, expectation) else "2")
        _wait_ready(browser, item)
    lines = (root / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 10

    browser.refresh()  # type: ignore[attr-defined]
    _wait_ready(browser)
    assert _count(browser, "labelled") == 10 and _count(browser, "remaining") == 14
    assert _count(browser, "deferred") == 1  # the server remembers the deferral
    while _count(browser, "remaining"):
        arm, case, run, expectation, item = _shown(browser)
        _press(browser, "1" if human_says(arm, case, run, expectation) else "2")
        _wait_ready(browser, item)
    assert _count(browser, "labelled") == 24 and _count(browser, "pass") == 15
    assert browser.find_element("id", "done").is_displayed()  # type: ignore[attr-defined]
    browser.refresh()  # type: ignore[attr-defined]
    _wait_ready(browser)
    assert _count(browser, "labelled") == 24 and _count(browser, "fail") == 9

    labels = [json.loads(x) for x in (root / "labels.jsonl").read_text().splitlines()]
    assert len(labels) == 24 and {x["labeler"] for x in labels} == {"ann"}
    assert len({(x["run"], x["expectation"]) for x in labels}) == 24
    for x in labels:
        _, arm, case, run = x["run"].split("/")
        want = human_says(arm, case, run.removeprefix("run-"), x["expectation"])
        assert x["label"] == ("pass" if want else "fail")

    _check_calibration(skill, root / "labels.jsonl")


def _check_calibration(skill: Path, labels: Path) -> None:
    """TP 14, FN 1, FP 2, TN 7 over all 24 verdicts (weights equal: every stratum complete)."""
    out = subprocess.run(
        [sys.executable, "-m", "skillbench", "calibrate", str(skill), "--labels", str(labels),
         "--json"], capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    data = json.loads(out.stdout)
    tpr, tnr = Fraction(14, 15), Fraction(7, 9)
    j = tpr + tnr - 1
    assert data["overall"]["confusion"] == {"tp": 14, "fn": 1, "fp": 2, "tn": 7}
    assert data["overall"]["tpr"]["value"] == pytest.approx(float(tpr), abs=1e-12)
    assert data["overall"]["tnr"]["value"] == pytest.approx(float(tnr), abs=1e-12)
    assert data["overall"]["attenuation"] == pytest.approx(float(j), abs=1e-12)
    with_skill = (Fraction(10, 12) + tnr - 1) / j
    baseline = (Fraction(6, 12) + tnr - 1) / j
    assert with_skill == Fraction(55, 64) and baseline == Fraction(25, 64)
    rates = data["pass_rates"]
    assert rates["with_skill"]["observed"] == pytest.approx(10 / 12, abs=1e-12)
    assert rates["with_skill"]["corrected"] == pytest.approx(float(with_skill), abs=1e-12)
    assert rates["baseline"]["corrected"] == pytest.approx(float(baseline), abs=1e-12)
    assert data["delta"]["corrected"] == pytest.approx(float(with_skill - baseline), abs=1e-12)
    assert data["delta"]["observed"] == pytest.approx(4 / 12, abs=1e-12)
    low, high = rates["with_skill"]["low"], rates["with_skill"]["high"]
    assert low <= float(with_skill) <= high
    assert Path(data["written"]).name == "calibration.json"
