"""A branded tenant's pages in Debian's Chromium (Selenium, headless): the logo loads,
the main action has the tenant's colour, the text names the tenant's app and never
"Tessera app", its own sentence appears, Accept-Language and ui_locales choose the
language, no Content-Security-Policy violation happens, and axe-core (axe-selenium-python)
finds no serious or critical accessibility violation. Every page is photographed at a
desktop and a phone size in each language into SCREENSHOT_DIR.

Environment: AUTHORIZE_URL (a login request of the branded tenant, without ui_locales),
ACTIVATE_URL (an invitation's page), SIGNED_OUT_URL, ERROR_URL (a request that fails),
ACCOUNT_URL (the account page, signed out),
PRIMARY_RGB (the computed colour expected, `rgb(r, g, b)`), APP_NAME, OVERRIDE (the
tenant's English sentence), SCREENSHOT_DIR. Prints RESULT {json}.
"""
import json
import os

from axe_selenium_python import Axe
from selenium.webdriver.common.by import By

import browsing
from browsing import check

SHOTS = os.environ["SCREENSHOT_DIR"]
APP = os.environ["APP_NAME"]
PAGES = {
    "login": os.environ["AUTHORIZE_URL"],
    "activate": os.environ["ACTIVATE_URL"],
    "signed-out": os.environ["SIGNED_OUT_URL"],
    "error": os.environ["ERROR_URL"],
    "account": os.environ["ACCOUNT_URL"],
}
# Records every securitypolicyviolation event from the first script of each document on
# (the DevTools protocol's script runs whatever the page's policy says).
WATCH_CSP = """window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) { window.__violations.push(e.violatedDirective + ' ' + e.blockedURI); });"""
result = {"pages": 0, "screenshots": 0, "axe_runs": 0, "serious": [], "languages": {}}


def open_page(driver, url, accept_language):
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": accept_language}})
    driver.get(url)
    browsing.wait(lambda: driver.execute_script("return document.readyState") == "complete", message=f"{url} did not load")
    result["pages"] += 1


def violations(driver):
    found = driver.execute_script("return window.__violations || []")
    logged = [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    return found + logged


for size in ["1280,900", "390,844"]:
    driver = browsing.start(window_size=size, browser_log=True)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_CSP})
    label = "desktop" if size.startswith("1280") else "phone"

    # The login page in English, as the browser asks: the tenant's logo, colour, app and sentence.
    open_page(driver, PAGES["login"], "en-US,en;q=0.9")
    logo = driver.find_element(By.ID, "brand-logo")
    check(driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", logo) > 0, "the logo did not load")
    service_logo = driver.find_element(By.ID, "service-logo")
    check(driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", service_logo) > 0, "the service's logo did not load")
    check(driver.find_element(By.ID, "service-terms").get_attribute("href") == "https://webmail.example/terms", "no link to the service's terms")
    button = driver.find_element(By.ID, "same-device")
    colour = driver.execute_script("return getComputedStyle(arguments[0]).backgroundColor", button)
    check(colour == os.environ["PRIMARY_RGB"], f"the main action's colour is {colour}, not {os.environ['PRIMARY_RGB']}")
    text = driver.find_element(By.TAG_NAME, "body").text
    check(APP in text, f"the page does not name {APP}")
    check("Tessera app" not in text and "Tessera-App" not in text, "the page names the Tessera app")
    check(os.environ["OVERRIDE"] in text, "the tenant's own sentence is missing")
    check(driver.find_element(By.ID, "support-link").get_attribute("href").startswith("https://"), "no support link")
    check(violations(driver) == [], f"CSP violations: {violations(driver)}")

    # Accept-Language: de-DE gives German; the service's ui_locales=en wins over it.
    open_page(driver, PAGES["login"], "de-DE,de;q=0.9")
    check(driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de", "Accept-Language de-DE did not give German")
    check("anmelden" in driver.find_element(By.TAG_NAME, "h1").text, "the German title is missing")
    check(APP in driver.find_element(By.TAG_NAME, "body").text, "the German page does not name the app")
    open_page(driver, PAGES["login"] + "&ui_locales=en", "de-DE,de;q=0.9")
    check(driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en", "ui_locales=en did not win over Accept-Language")
    check(os.environ["OVERRIDE"] in driver.find_element(By.TAG_NAME, "body").text, "the override is missing under ui_locales")

    # Every page in every language: photographed, free of CSP violations; axe on each page.
    for language in ["en", "de", "fr"]:
        for name, url in PAGES.items():
            open_page(driver, url, language)
            lang = driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
            check(lang == language, f"{name} is in {lang}, not {language}")
            result["languages"].setdefault(language, []).append(driver.find_element(By.TAG_NAME, "h1").text)
            check(violations(driver) == [], f"CSP violations on {name} ({language}): {violations(driver)}")
            # The whole page, not only the window: the window grows to the page's height for the picture.
            width, height = (int(value) for value in size.split(","))
            full = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(width, max(height, full))
            driver.save_screenshot(os.path.join(SHOTS, f"{name}-{language}-{label}.png"))
            driver.set_window_size(width, height)
            result["screenshots"] += 1
            if language == "en" or name == "login":
                axe = Axe(driver)
                axe.inject()
                found = axe.run()
                result["axe_runs"] += 1
                for violation in found["violations"]:
                    if violation.get("impact") in ("serious", "critical"):
                        result["serious"].append(f"{name} {language} {label}: {violation['id']} ({violation['impact']}): {violation['help']}")
    driver.quit()

check(result["serious"] == [], "axe found serious or critical violations:\n" + "\n".join(result["serious"]))
print("RESULT " + json.dumps(result), flush=True)
