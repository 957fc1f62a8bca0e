"""Linking an invitation's account to an identity at another provider, in Debian's
Chromium with the server's own pages and their Content-Security-Policy:

1. The invitation page's provider button (a form) goes on to the provider's login page.
2. The provider's login page is answered by the test's device there (the script prints
   `SCAN <url> <number>`), and the browser comes back to a page naming both accounts.
3. Nothing is linked until its button is pressed; then the page says the accounts are linked.

Environment: INVITATION_URL, PROVIDER_ISSUER, IDENTITY (the provider account's e-mail),
USERNAME (the invited account), SCREENSHOT_DIR. Prints `RESULT <json>` (with axe-core's serious
and critical findings on each page); exits non-zero on the first failed check.
"""
import json
import os
from selenium.webdriver.common.by import By

from browsing import check, exists, serious_accessibility_violations, start, wait

driver = start()
accessibility = []


def shot(name):
    """Checks the page with axe-core, and with SCREENSHOT_DIR set keeps a picture of it."""
    accessibility.extend(serious_accessibility_violations(name))
    directory = os.environ.get("SCREENSHOT_DIR")
    if directory:
        driver.save_screenshot(os.path.join(directory, f"{name}.png"))


try:
    provider = os.environ["PROVIDER_ISSUER"]
    driver.get(os.environ["INVITATION_URL"])
    wait(lambda: exists("form.provider-link button.provider"), message="the invitation page offers no provider")
    shot("federation-1-invitation")
    driver.find_element(By.CSS_SELECTOR, "form.provider-link button.provider").click()
    # The form's answer goes on to the provider by itself: the page's form-action does not stop it.
    wait(lambda: driver.current_url.startswith(provider + "/authorize") and exists("#authentication-url"), seconds=30,
         message="the browser did not reach the provider's login page")
    number = driver.find_element(By.ID, "match-code").text.strip() if exists("#match-code") else "none"
    print(f"SCAN {driver.find_element(By.ID, 'authentication-url').text.strip()} {number}", flush=True)
    wait(lambda: exists("#confirm-link"), seconds=60, message="no confirmation page after the provider's sign-in")
    shot("federation-2-confirm")
    identity = driver.find_element(By.ID, "link-identity").text
    username = driver.find_element(By.ID, "link-username").text
    check(identity == os.environ["IDENTITY"] and username == os.environ["USERNAME"], f"the page names {identity} and {username}")
    print("CONFIRMING", flush=True)
    # The test looks at the server before the button is pressed: it creates CONFIRMED_FILE
    # once it has (a printed line reaches it later than the next click would).
    acknowledged = os.environ.get("CONFIRMED_FILE")
    if acknowledged:
        wait(lambda: os.path.exists(acknowledged), seconds=60, message="the test did not look before the confirmation")
    driver.find_element(By.CSS_SELECTOR, "#confirm-link button").click()
    wait(lambda: exists("#linked"), message="the accounts were not linked")
    check(os.environ["USERNAME"] in driver.find_element(By.ID, "linked").text, "the linked page names the account")
    shot("federation-3-linked")
    print("RESULT " + json.dumps({"identity": identity, "username": username, "accessibility": accessibility}), flush=True)
finally:
    driver.quit()
