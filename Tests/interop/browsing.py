"""Debian's Chromium under Selenium for the page tests (nothing downloads a browser), and
the checks the page scripts share. `start()` opens the browser the other helpers act on.
"""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

driver = None


def start(window_size="1000,1400", browser_log=False):
    """Headless Chromium at /usr/bin/chromium with Debian's chromedriver; with `browser_log`,
    the console's messages (CSP violations among them) can be read with get_log("browser")."""
    global driver
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window_size}", "--disable-gpu"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    return driver


def check(condition, message):
    """Stops the script with `message`, the page's address and the start of its source."""
    if not condition:
        print(f"FAILED {message}", file=sys.stderr, flush=True)
        try:
            print(driver.current_url, file=sys.stderr)
            print(driver.page_source[:3000], file=sys.stderr)
        except Exception:
            pass
        sys.exit(1)


def wait(condition, seconds=30, message="the page did not change"):
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.2).until(lambda _: condition())
    except Exception:
        check(False, message)


def exists(selector):
    return len(driver.find_elements(By.CSS_SELECTOR, selector)) > 0


def serious_accessibility_violations(label):
    """axe-core (bundled by axe-selenium-python) on the page shown: its serious and critical
    violations, each as one line naming `label`, the rule, the impact and the first element."""
    from axe_selenium_python import Axe
    axe = Axe(driver)
    axe.inject()
    found = axe.run()
    lines = []
    for violation in found["violations"]:
        if violation.get("impact") in ("serious", "critical"):
            target = violation["nodes"][0]["target"] if violation.get("nodes") else []
            lines.append(f"{label}: {violation['id']} ({violation['impact']}) {violation['help']} at {target}")
    return lines
