"""Drives Debian's Chromium (Selenium, headless) through Tessera's web console and
account page, against a real server at TESSERA_BASE.

It talks to the Swift test by lines: it prints `SCAN <who> <url>` when a login page
shows a QR code (decoded from a screenshot with zbarimg) and `ACTIVATE <who> <url>`
for an invitation's QR code; the test's devices answer, and this script waits for the
page to move on. It prints `RESULT <json>` with what it saw, and exits non-zero with a
message on the first failed check.
"""
import json
import os
import re
import subprocess
import tempfile

import requests

from selenium.common.exceptions import NoAlertPresentException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from browsing import check, exists, serious_accessibility_violations, start, wait

BASE = os.environ["TESSERA_BASE"]
ACCOUNT_TENANT = os.environ["ACCOUNT_TENANT"]
result = {}


def shot(name):
    """Checks the page with axe-core (serious and critical violations go to the result), and
    with SCREENSHOT_DIR set keeps a picture of the whole page, for review."""
    result.setdefault("accessibility", []).extend(serious_accessibility_violations(name))
    result["axe_pages"] = result.get("axe_pages", 0) + 1
    directory = os.environ.get("SCREENSHOT_DIR")
    if directory:
        # axe-core scrolls to what it checks: back to the top and the tables' start, as a person arrives.
        driver.execute_script(
            "window.scrollTo(0, 0); document.querySelectorAll('.table').forEach(function (e) { e.scrollLeft = 0; });")
        width, height = (int(value) for value in os.environ.get("WINDOW_SIZE", "1000,1400").split(","))
        full = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(width, max(height, full))
        label = "phone" if width < 600 else "desktop"
        driver.save_screenshot(os.path.join(directory, f"console-{name}-{label}.png"))
        driver.set_window_size(width, height)


def qr_from_screen(element_id):
    """The text of the QR code in element `element_id`, read from a screenshot by zbarimg."""
    element = driver.find_element(By.ID, element_id)
    with tempfile.NamedTemporaryFile(suffix=".png", delete=False) as file:
        path = file.name
    element.screenshot(path)
    decoded = subprocess.run(["zbarimg", "--raw", "-q", path], capture_output=True, text=True, timeout=30)
    os.unlink(path)
    check(decoded.returncode == 0, f"zbarimg read no QR code in #{element_id}: {decoded.stderr}")
    return decoded.stdout.strip()


def text(element_id):
    return driver.find_element(By.ID, element_id).text


def submit(form, confirm=False):
    """Submits a form by its button, as a person would (accepting its confirmation)."""
    page = driver.find_element(By.TAG_NAME, "html")
    form.find_element(By.TAG_NAME, "button").click()
    if confirm:
        WebDriverWait(driver, 5).until(lambda d: alert_present(d))
        driver.switch_to.alert.accept()
    WebDriverWait(driver, 30).until(staleness_of(page))


def staleness_of(element):
    """Whether `element` left the page (a navigation replaced it). Chromium reports a
    replaced node as a stale reference or as a node "not in the document": both count."""
    def left(_):
        try:
            element.is_enabled()
            return False
        except WebDriverException:
            return True
    return left


def alert_present(d):
    try:
        d.switch_to.alert
        return True
    except NoAlertPresentException:
        return False


def speak(language):
    """Has the browser ask for pages in `language` (None: as it does by itself)."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language} if language else {}})


def photograph_in_languages(name, path):
    """The page at `path` in German and French: in that language, photographed, checked with axe."""
    for language in ["de", "fr"]:
        speak(language)
        driver.get(BASE + path)
        lang = driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
        check(lang == language, f"the {name} page is in {lang}, not {language}")
        shot(f"{name}-{language}")
    speak(None)


def fill(field_id, value):
    field = driver.find_element(By.ID, field_id)
    field.clear()
    field.send_keys(value)


def sign_in(start_url, who, landing):
    """Opens `start_url`, follows the sign-in link to the login page, hands the QR code to
    the test's device, and waits for `landing`."""
    driver.get(start_url)
    driver.find_element(By.ID, "sign-in").click()
    wait(lambda: exists("#qr svg"), message="no login page with a QR code")
    shot(f"login-{who}")
    url = qr_from_screen("qr")
    check("/authenticate?request=" in url, f"the QR code is not an authentication link: {url}")
    # Number matching: the person reads the number on the page and picks it on the device.
    code = driver.find_element(By.ID, "match-code").text.strip()
    check(code.isdigit() and len(code) == 2, f"the login page shows no two-digit number to pick: {code!r}")
    print(f"SCAN {who} {url} {code}", flush=True)
    wait(lambda: driver.current_url.split("?")[0] == landing, seconds=60, message=f"{who} was not signed in")


driver = start(os.environ.get("WINDOW_SIZE", "1000,1400"))
try:
    # Every page is served with a strict policy: the login page's script is a file.
    # 1. Operator sign-in by QR and device approval.
    sign_in(f"{BASE}/console", "admin", f"{BASE}/console")
    check(exists("#dashboard"), "no dashboard after sign-in")
    check(exists("#dashboard svg"), "the dashboard has no chart")
    logins = driver.find_element(By.CSS_SELECTOR, "#tenant-operators dd.logins").text
    check(int(logins) >= 1, f"the dashboard does not count the sign-in that just happened: {logins}")
    check(exists("#tenant-operators svg rect[fill='#2f4fd8']"), "the chart has no bar for that sign-in")
    shot("dashboard")

    # 2. A tenant, a service, a user.
    driver.get(f"{BASE}/console/tenants")
    fill("tenant-name", "Bad Name!")
    submit(driver.find_element(By.ID, "create-tenant"))
    check(exists("#name-error"), "an invalid tenant name has no error beside the field")
    shot("tenants-error")
    fill("tenant-name", "acme")
    submit(driver.find_element(By.ID, "create-tenant"))
    wait(lambda: driver.current_url.startswith(f"{BASE}/console/tenants/acme"), message="the tenant was not created")
    check("Created" in text("notice"), "no notice after creating the tenant")
    shot("tenant")
    # The e-mail settings: notices and the language change; e-mail-only invitations need an SMTP server, which this one lacks.
    check(driver.find_element(By.ID, "notices").get_attribute("value") == "device_added, device_removed, passkey_added, locked",
          "a new tenant does not send every notice")
    fill("notices", "locked, device_added")
    fill("default_language", "de")
    submit(driver.find_element(By.ID, "tenant-settings"))
    check(driver.find_element(By.ID, "notices").get_attribute("value") == "device_added, locked", "the notices did not change")
    check(driver.find_element(By.ID, "default_language").get_attribute("value") == "de", "the language did not change")
    # Branding: a colour below WCAG AA is refused beside its field; a good one is kept.
    fill("display_name", "Acme Bank")
    fill("primary_color", "#ffee00")
    submit(driver.find_element(By.ID, "tenant-branding"))
    check(exists("#primary_color-error") and "contrast" in text("primary_color-error"), "a pale colour was not refused beside its field")
    shot("tenant-branding-error")
    fill("primary_color", "#7a1f5c")
    submit(driver.find_element(By.ID, "tenant-branding"))
    check("Saved" in text("notice"), "the branding was not saved")
    check(driver.find_element(By.ID, "display_name").get_attribute("value") == "Acme Bank", "the display name was not kept")
    check(driver.find_element(By.ID, "primary_color").get_attribute("value") == "#7a1f5c", "the colour was not kept")
    # The logo, uploaded with the form as a browser sends a file (multipart/form-data): a file
    # that is no image is refused beside the field; a PNG is kept and shown.
    with tempfile.NamedTemporaryFile(suffix=".png", delete=False) as file:
        file.write(b"this is no image")
        not_an_image = file.name
    driver.find_element(By.ID, "logo").send_keys(not_an_image)
    submit(driver.find_element(By.ID, "tenant-logo-upload"))
    os.unlink(not_an_image)
    check(exists("#logo-error") and "PNG" in text("logo-error"), "a file that is no PNG was not refused beside the logo field")
    check(not exists("#tenant-logo"), "a refused logo was kept")
    driver.find_element(By.ID, "logo").send_keys(os.environ["LOGO_FILE"])
    submit(driver.find_element(By.ID, "tenant-logo-upload"))
    check("logo" in text("notice"), "no notice after uploading the logo")
    wait(lambda: driver.execute_script(
        "var i = document.getElementById('tenant-logo'); return i !== null && i.complete && i.naturalWidth > 0"),
        message="the uploaded logo is not shown")
    driver.find_element(By.ID, "invitations_by_email_only").click()
    submit(driver.find_element(By.ID, "tenant-settings"))
    check(exists("#invitations_by_email_only-error") and "smtp" in text("invitations_by_email_only-error"),
          "e-mail-only invitations without SMTP were not refused beside the box")
    fill("default_language", "en")
    driver.get(f"{BASE}/console/tenants/acme")
    check(not driver.find_element(By.ID, "invitations_by_email_only").is_selected(), "a refused setting was stored")

    driver.get(f"{BASE}/console/tenants/acme/services")
    check(driver.find_element(By.ID, "service-number-matching").is_selected(), "a new service does not match numbers by default")
    fill("service-name", "Shop")
    fill("service-redirect-uris", "not a uri")
    submit(driver.find_element(By.ID, "create-service"))
    check(exists("#redirect_uris-error"), "an invalid redirect URI has no error beside the field")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#services tbody tr")) == 0, "a refused service was created")
    fill("service-redirect-uris", "https://shop.example/callback")
    fill("service-attributes", "email")
    submit(driver.find_element(By.ID, "create-service"))
    wait(lambda: exists("#secret"), message="no secret shown for the new service")
    shot("service-secret")
    client_id = text("extra")
    result["service_secret_shown"] = len(text("secret")) > 20
    driver.find_element(By.ID, "continue").click()
    wait(lambda: exists("#edit-service"), message="no service page")
    check(text("client-id") == client_id, "the service page shows another client id")
    result["client_id"] = client_id

    # CIBA settings: ping mode without its endpoint is refused beside the endpoint field.
    Select(driver.find_element(By.ID, "service-backchannel-mode")).select_by_value("ping")
    submit(driver.find_element(By.ID, "edit-service"))
    check(exists("#backchannel_client_notification_endpoint-error"), "ping mode without an endpoint has no error beside the field")
    shot("service-error")
    Select(driver.find_element(By.ID, "service-backchannel-mode")).select_by_value("poll")
    fill("service-notification-endpoint", "")
    fill("service-session-lifetime", "3600")
    submit(driver.find_element(By.ID, "edit-service"))
    wait(lambda: exists("#notice") and "Saved" in text("notice"), message="the service's CIBA mode and session lifetime were not saved")
    check(driver.find_element(By.ID, "service-session-lifetime").get_attribute("value") == "3600", "the session lifetime was not kept")
    check(Select(driver.find_element(By.ID, "service-backchannel-mode")).first_selected_option.get_attribute("value") == "poll",
          "the CIBA mode was not kept")
    check(driver.find_element(By.ID, "service-number-matching").is_selected(), "the service created with number matching lost it")
    driver.find_element(By.ID, "service-number-matching").click()
    submit(driver.find_element(By.ID, "edit-service"))
    wait(lambda: exists("#notice") and "Saved" in text("notice"), message="number matching was not switched off")
    check(not driver.find_element(By.ID, "service-number-matching").is_selected(), "number matching is still on after unticking it")
    # Every switch of the form round-trips: PAR and DPoP on, then off again.
    for switch in ("service-require-par", "service-dpop-bound"):
        check(not driver.find_element(By.ID, switch).is_selected(), f"{switch} is on for a service that never set it")
        driver.find_element(By.ID, switch).click()
        submit(driver.find_element(By.ID, "edit-service"))
        wait(lambda: exists("#notice") and "Saved" in text("notice"), message=f"{switch} was not switched on")
        check(driver.find_element(By.ID, switch).is_selected(), f"{switch} is off after ticking it")
        driver.find_element(By.ID, switch).click()
        submit(driver.find_element(By.ID, "edit-service"))
        wait(lambda: exists("#notice") and "Saved" in text("notice"), message=f"{switch} was not switched off")
        check(not driver.find_element(By.ID, switch).is_selected(), f"{switch} is still on after unticking it")

    driver.get(f"{BASE}/console/tenants/acme/users")
    # A form without its CSRF token changes nothing.
    driver.execute_script("document.querySelector('#create-user input[name=csrf]').remove()")
    fill("user-username", "mallory")
    submit(driver.find_element(By.ID, "create-user"))
    check("This form is out of date" in driver.page_source, "a form without its CSRF token was not refused")
    driver.get(f"{BASE}/console/tenants/acme/users?q=mallory")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#users tbody tr")) == 0, "the forged form created a user")

    driver.get(f"{BASE}/console/tenants/acme/users")
    fill("user-username", "bob")
    fill("user-attributes", "email=bob@example.com")
    submit(driver.find_element(By.ID, "create-user"))
    wait(lambda: exists("#invite-user"), message="no user page after creating bob")
    user_page = driver.current_url.split("?")[0]

    # A directory adds bob to a group over SCIM; the console lists it and its members.
    made = requests.post(f"{BASE}/t/acme/scim/v2/Groups", timeout=30, json={
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "staff",
        "members": [{"value": user_page.rstrip("/").split("/")[-1]}]},
        headers={"Authorization": "Bearer " + os.environ["TESSERA_ADMIN_TOKEN"], "Content-Type": "application/scim+json"})
    check(made.status_code == 201, f"the SCIM group was not made: {made.status_code} {made.text[:200]}")
    driver.get(f"{BASE}/console/tenants/acme")
    driver.find_element(By.ID, "link-groups").click()
    wait(lambda: exists("#groups"), message="no groups page")
    rows = driver.find_elements(By.CSS_SELECTOR, "#groups tbody tr")
    check(len(rows) == 1 and "staff" in rows[0].text and "1" in rows[0].text, "the group is not listed with its member")
    rows[0].find_element(By.TAG_NAME, "a").click()
    wait(lambda: exists("#group-members"), message="no group page")
    group_page = driver.current_url.split("?")[0]
    check("acme" in driver.find_element(By.CSS_SELECTOR, "main p a").text, "the group page's link does not name the tenant's groups")
    check("bob" in text("group-members"), "the group page does not list bob")
    driver.get(user_page)
    wait(lambda: exists("#invite-user"), message="no user page")

    # 3. Invite, and activate a device from the QR code shown.
    submit(driver.find_element(By.ID, "invite-user"))
    wait(lambda: exists("#invitation-qr svg"), message="no invitation QR code")
    shot("invitation")
    invitation = qr_from_screen("invitation-qr")
    check(invitation == text("invitation-url"), "the QR code is not the link shown")
    print(f"ACTIVATE bob {invitation}", flush=True)

    # 4. The test locks the device with wrong PINs; unlock it, then revoke it.
    def locked_row():
        driver.get(user_page)
        return any("locked" in cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#activations td.state"))
    wait(locked_row, seconds=60, message="bob's device never showed as locked")
    shot("user-locked")
    submit(driver.find_element(By.CSS_SELECTOR, "#activations form.unlock"))
    wait(lambda: exists("#notice"), message="no notice after unlocking")
    check("unlocked" in text("notice"), "the unlock was not confirmed")
    check(not exists("#activations form.unlock"), "the device still shows as locked")
    print("UNLOCKED bob", flush=True)
    submit(driver.find_element(By.CSS_SELECTOR, "#activations form.revoke"), confirm=True)
    wait(lambda: exists("#notice") and "revoked" in text("notice"), message="no notice after revoking")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#activations tbody tr")) == 0, "the revoked device is still listed")

    # A tenant with users is not deleted without force; an empty one is.
    driver.get(f"{BASE}/console/tenants/acme")
    submit(driver.find_element(By.ID, "delete-tenant"), confirm=True)
    check(exists("#error") and "users" in text("error"), "a tenant with users was deleted, or the refusal is not shown")
    driver.get(f"{BASE}/console/tenants")
    fill("tenant-name", "scratch")
    submit(driver.find_element(By.ID, "create-tenant"))
    submit(driver.find_element(By.ID, "delete-tenant"), confirm=True)
    check(driver.current_url.startswith(f"{BASE}/console/tenants?"), "deleting a tenant did not return to the tenants")
    check("scratch" not in text("tenants"), "the deleted tenant is still listed")

    # The audit log names the operator.
    driver.get(f"{BASE}/console/audit?tenant=acme")
    actors = {cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#audit td.actor")}
    actions = {cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#audit td.action")}
    check("operator:olivia" in actors, f"the audit log does not name the operator: {actors}")
    origins = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#audit td.origin")]
    check(any(o.startswith("127.0.0.1") and "request " in o for o in origins),
          f"the audit log does not say where the operator's changes came from: {origins[:3]}")
    shot("audit")
    for action in ["tenant.create", "service.create", "service.update", "user.create", "invitation.create", "activation.unlock",
                   "activation.revoke"]:
        check(action in actions, f"the audit log lacks {action}: {actions}")

    # Webhooks: one added (its signing secret shown once), sent a test, removed.
    driver.get(f"{BASE}/console/webhooks")
    fill("webhook-url", "http://127.0.0.1:9/hook")
    fill("webhook-events", "audit.*, login.failed")
    submit(driver.find_element(By.ID, "create-webhook"))
    check(text("secret").startswith("whsec_"), "no signing secret shown for the new webhook")
    shot("webhook-secret")
    driver.find_element(By.ID, "continue").click()
    wait(lambda: exists("#webhooks tbody tr"), message="the new webhook is not listed")
    check("audit.*, login.failed" in text("webhooks") and "whsec_" not in driver.page_source, "the webhook's row is wrong")
    shot("webhooks")
    submit(driver.find_element(By.CSS_SELECTOR, "#webhooks form.test-webhook"))
    check("A test event is on its way." in driver.page_source, "the test was not confirmed")
    submit(driver.find_element(By.CSS_SELECTOR, "#webhooks form.remove-webhook"), confirm=True)
    check(len(driver.find_elements(By.CSS_SELECTOR, "#webhooks tbody tr")) == 0, "the removed webhook is still listed")
    # A malformed one is refused beside its field, and nothing is made.
    fill("webhook-url", "http://127.0.0.1:9/hook")
    fill("webhook-events", "everything")
    submit(driver.find_element(By.ID, "create-webhook"))
    check(exists("#events-error"), "an unknown event was not refused beside its field")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#webhooks tbody tr")) == 0, "a refused webhook was made")

    # The console in each language the browser asks for: every page photographed and
    # checked with axe-core, no key left untranslated.
    console_pages = {
        "dashboard": "/console", "tenants": "/console/tenants", "tenant": "/console/tenants/acme",
        "services": "/console/tenants/acme/services", "service": f"/console/tenants/acme/services/{client_id}",
        "users": "/console/tenants/acme/users", "user": user_page[len(BASE):], "signing-keys": "/console/tenants/acme/keys",
        "groups": "/console/tenants/acme/groups", "group": group_page[len(BASE):], "audit": "/console/audit", "webhooks": "/console/webhooks", "api-keys": "/console/keys",
    }
    english_headings = {}
    for language in ["en", "de", "fr"]:
        speak(language)
        for name, path in console_pages.items():
            driver.get(BASE + path)
            lang = driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
            check(lang == language, f"the console's {name} page is in {lang}, not {language}")
            heading = driver.find_element(By.TAG_NAME, "h1").text
            body = driver.find_element(By.TAG_NAME, "body").text
            check("Words(" not in driver.page_source and "console." not in body, f"a sentence is missing on {name} ({language})")
            check(re.search(r"\{[a-z_]+\}", body) is None, f"a placeholder is left unfilled on {name} ({language})")
            if language == "en":
                english_headings[name] = heading
            elif name not in ("dashboard", "service", "webhooks", "group"):
                check(heading != english_headings[name], f"the {name} page's heading is English in {language}: {heading}")
            if language != "en":
                shot(f"{name}-{language}")
    speak(None)
    result["console_languages"] = ["en", "de", "fr"]

    # Sign out: the session is gone, the console asks to sign in again.
    submit(driver.find_element(By.ID, "sign-out"))
    wait(lambda: driver.current_url.startswith(f"{BASE}/console/sign-in"), message="sign-out did not return to sign-in")
    photograph_in_languages("sign-in", "/console/sign-in")
    driver.get(f"{BASE}/console/tenants")
    check(driver.current_url.startswith(f"{BASE}/console/sign-in"), "a signed-out browser still reaches the console")

    # 5. A helpdesk operator may not edit a service.
    sign_in(f"{BASE}/console", "helpdesk", f"{BASE}/console")
    driver.get(f"{BASE}/console/tenants/acme/services/{client_id}")
    check(not exists("#save-service"), "a helpdesk operator is offered a service edit")
    check(not exists("#delete-service"), "a helpdesk operator is offered a service deletion")
    page = driver.find_element(By.TAG_NAME, "html")
    driver.execute_script(
        "var f = document.getElementById('edit-service');"
        "f.querySelectorAll('[disabled]').forEach(function (e) { e.disabled = false; });"
        "f.querySelector('#service-name').value = 'Hijacked'; f.submit();")
    WebDriverWait(driver, 30).until(staleness_of(page))
    wait(lambda: exists("#error"), message="the helpdesk's forged edit was not answered with an error")
    check("helpdesk" in text("error"), f"the refusal does not name the role: {text('error')}")
    shot("helpdesk-refused")
    driver.get(f"{BASE}/console/tenants/acme/services")
    check("Hijacked" not in driver.page_source, "the helpdesk's edit changed the service")
    check("Shop" in driver.page_source, "the service lost its name")
    submit(driver.find_element(By.ID, "sign-out"))

    # 6. The account page: carol signs in with one device and removes the other.
    home = f"{BASE}/t/{ACCOUNT_TENANT}/account"
    sign_in(home, "carol", home)
    rows = driver.find_elements(By.CSS_SELECTOR, "#devices tbody tr")
    check(len(rows) == 2, f"carol's account page lists {len(rows)} devices, not 2")
    shot("account")
    photograph_in_languages("account", home[len(BASE):])
    check(len(driver.find_elements(By.CSS_SELECTOR, "#sessions tbody tr")) >= 1, "carol's account page lists no session")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#sign-ins tbody tr")) >= 1, "carol's account page lists no sign-in")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#devices form.remove-device")) == 1, "not exactly one other device is removable")
    submit(driver.find_element(By.CSS_SELECTOR, "#devices form.remove-device"), confirm=True)
    wait(lambda: exists("#notice") and "removed" in text("notice"), message="no notice after removing a device")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#devices tbody tr")) == 1, "the removed device is still listed")
    # Recovery codes: ten, shown once; afterwards the page counts the unused ones.
    check("0" in text("recovery-left"), "the account page does not count carol's recovery codes")
    submit(driver.find_element(By.ID, "make-recovery-codes"), confirm=True)
    wait(lambda: exists("#recovery-codes"), message="no recovery codes after making them")
    codes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes li")]
    check(len(codes) == 10 and all(len(code) == 23 for code in codes), f"not ten recovery codes: {codes}")
    driver.get(home)
    wait(lambda: exists("#recovery-left"), message="no recovery code count")
    check("10" in text("recovery-left") and not exists("#recovery-codes"), "the codes are shown again, or not counted")
    submit(driver.find_element(By.ID, "sign-out"))
    wait(lambda: exists("#sign-in"), message="the account page's sign-out did not return to sign-in")

    print("RESULT " + json.dumps(result), flush=True)
finally:
    driver.quit()
