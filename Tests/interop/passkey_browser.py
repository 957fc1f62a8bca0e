"""Passkeys in Debian's Chromium (Selenium, headless) with Chromium's virtual authenticator
(WebDriver's WebAuthn extension: CTAP2, internal transport, resident keys, user
verification), against a real server whose public URL is http://localhost:PORT.

1. An invitation's page registers a passkey (webauthn.js, navigator.credentials.create).
2. The login page signs in with it (the passkey button, navigator.credentials.get);
   Authlib redeems the code and joserfc verifies the ID token.
3. The account page (signed in with a device: the script prints `SCAN <url> <number>`
   for the Swift test's device) lists the passkey, registers a second one on another
   authenticator, and removes the first.
4. An operator signed in to the console (with a device: `SCAN operator …`) sees the second
   passkey on the user's page and removes it; the login page then refuses it with a message.

Environment: TESSERA_ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, INVITATION_URL, ADMIN_BASE,
ADMIN_TOKEN, TENANT, USER_ID.
Prints `RESULT <json>`; exits non-zero with a message on the first failed check.
"""
import json
import os

from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.jwk import KeySet
import requests
from selenium.common.exceptions import NoAlertPresentException, TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

from browsing import check, exists, start, wait

ISSUER = os.environ["TESSERA_ISSUER"]
REDIRECT_URI = os.environ["REDIRECT_URI"]
result = {}


def visible(element_id):
    elements = driver.find_elements(By.ID, element_id)
    return bool(elements) and elements[0].is_displayed()


def authenticator():
    """A platform authenticator that holds passkeys and verifies its user."""
    options = VirtualAuthenticatorOptions()
    options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    options.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_verified = True
    options.is_user_consenting = True
    driver.add_virtual_authenticator(options)


def register(name, status_text):
    wait(lambda: visible("passkey-register"), message="no passkey registration on the page")
    driver.find_element(By.ID, "passkey-name").send_keys(name)
    driver.find_element(By.ID, "passkey-register-button").click()
    wait(lambda: status_text(), message="the passkey was not registered")


def passkey_login():
    """Signs in through /authorize with the passkey button; returns the redirect URL."""
    metadata = requests.get(ISSUER + "/.well-known/openid-configuration", timeout=30).json()
    session = OAuth2Session(
        os.environ["CLIENT_ID"], os.environ["CLIENT_SECRET"], scope="openid", redirect_uri=REDIRECT_URI,
        code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic",
    )
    verifier, nonce = generate_token(48), generate_token(20)
    url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    driver.get(url)
    # Where the browser offers conditional mediation (autofill), the page asks for a passkey
    # on load, and Chromium's virtual authenticator answers at once; else the button does.
    def answered():
        try:
            return driver.current_url.startswith(REDIRECT_URI) or visible("passkey-error")
        except WebDriverException:
            return False  # the page was being replaced
    try:
        WebDriverWait(driver, 20, poll_frequency=0.2).until(lambda _: answered())
        result.setdefault("conditional", []).append(True)
    except TimeoutException:
        result.setdefault("conditional", []).append(False)
        wait(lambda: visible("passkey"), message="the login page shows no passkey sign-in")
        driver.find_element(By.ID, "passkey-button").click()
    return metadata, session, verifier, nonce, state


def scan(who):
    """Hands the login page's link (and the number to pick) to the test's device for `who`."""
    url = driver.find_element(By.ID, "authentication-url").text.strip()
    number = driver.find_element(By.ID, "match-code").text.strip() if exists("#match-code") else "none"
    print(f"SCAN {who} {url} {number}", flush=True)


def alert_present():
    try:
        driver.switch_to.alert
        return True
    except NoAlertPresentException:
        return False


driver = start()
try:
    authenticator()

    # 1. The invitation's page registers a passkey.
    driver.get(os.environ["INVITATION_URL"])
    register("Laptop", lambda: "registered" in driver.find_element(By.ID, "passkey-register-status").text)
    credentials = driver.get_credentials()
    check(len(credentials) == 1 and credentials[0].is_resident_credential, f"the authenticator holds {len(credentials)} credentials")
    result["conditional_mediation"] = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "PublicKeyCredential.isConditionalMediationAvailable().then(done, function () { done(false); });"
    )

    # 2. The login page signs in with it; Authlib redeems the code; joserfc verifies.
    metadata, session, verifier, nonce, state = passkey_login()
    wait(lambda: driver.current_url.startswith(REDIRECT_URI + "?"), message="the passkey sign-in did not return to the service")
    token = session.fetch_token(
        metadata["token_endpoint"], authorization_response=driver.current_url, code_verifier=verifier, state=state
    )
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=30).json())
    claims = jwt.decode(token["id_token"], keys, algorithms=["ES256"]).claims
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": ISSUER}, aud={"essential": True, "value": os.environ["CLIENT_ID"]},
        nonce={"essential": True, "value": nonce},
    ).validate(claims)
    check("user" in claims["amr"] and claims["acr"] == "urn:tessera:acr:securitykey", f"claims {claims}")
    check(credentials[0].user_handle is not None, "the passkey holds no user handle")
    result["claims"] = claims

    # 3. The account page: sign in with the device, see the passkey, add another, remove the first.
    home = ISSUER + "/account"
    driver.get(home)
    driver.find_element(By.ID, "sign-in").click()
    wait(lambda: exists("#qr svg") and exists("#authentication-url"), message="no login page for the account")
    scan("user")
    wait(lambda: driver.current_url.split("?")[0] == home and exists("#security-keys"), seconds=60, message="not signed in to the account")
    rows = driver.find_elements(By.CSS_SELECTOR, "#security-keys tbody tr")
    check(len(rows) == 1 and "Laptop" in rows[0].text, f"the account page lists {len(rows)} passkeys")
    # The first authenticator's credential is excluded for this user: a second authenticator registers.
    driver.remove_virtual_authenticator()
    authenticator()
    register("Phone", lambda: "registered" in (driver.find_element(By.ID, "notice").text if exists("#notice") else ""))
    rows = driver.find_elements(By.CSS_SELECTOR, "#security-keys tbody tr")
    check(len(rows) == 2, f"after adding, the account page lists {len(rows)} passkeys")
    first_row = next(row for row in rows if "Laptop" in row.text)
    first_row.find_element(By.CSS_SELECTOR, "form.remove-security-key button").click()
    WebDriverWait(driver, 5).until(lambda _: alert_present())
    driver.switch_to.alert.accept()
    wait(lambda: exists("#notice") and "removed" in driver.find_element(By.ID, "notice").text, message="the passkey was not removed")
    rows = driver.find_elements(By.CSS_SELECTOR, "#security-keys tbody tr")
    check(len(rows) == 1 and "Phone" in rows[0].text, "the removed passkey is still listed")

    # The second passkey signs in.
    metadata, session, verifier, nonce, state = passkey_login()
    wait(lambda: driver.current_url.startswith(REDIRECT_URI + "?"), message="the second passkey did not sign in")

    # 4. An operator removes it: the login page says so.
    base = os.environ["ADMIN_BASE"]
    driver.get(f"{base}/console")
    driver.find_element(By.ID, "sign-in").click()
    wait(lambda: exists("#qr svg") and exists("#authentication-url"), message="no login page for the console")
    scan("operator")
    wait(lambda: driver.current_url.split("?")[0] == f"{base}/console" and exists("#dashboard"), seconds=60, message="the operator was not signed in")
    driver.get(f"{base}/console/tenants/{os.environ['TENANT']}/users/{os.environ['USER_ID']}")
    wait(lambda: exists("#security-keys"), message="the console's user page lists no security keys")
    rows = driver.find_elements(By.CSS_SELECTOR, "#security-keys tbody tr")
    check(len(rows) == 1 and "Phone" in rows[0].text, f"the console lists {[r.text for r in rows]}")
    rows[0].find_element(By.CSS_SELECTOR, "form.remove-security-key button").click()
    WebDriverWait(driver, 5).until(lambda _: alert_present())
    driver.switch_to.alert.accept()
    wait(lambda: exists("#notice") and "removed" in driver.find_element(By.ID, "notice").text, message="the console did not remove the key")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#security-keys tbody tr")) == 0, "the console still lists the removed key")
    admin = {"Authorization": "Bearer " + os.environ["ADMIN_TOKEN"]}
    user = f"{base}/admin/tenants/{os.environ['TENANT']}/users/{os.environ['USER_ID']}"
    check(requests.get(f"{user}/security-keys", headers=admin, timeout=30).json()["security_keys"] == [], "the admin API still lists a key")
    passkey_login()
    wait(lambda: visible("passkey-error") and "not registered" in driver.find_element(By.ID, "passkey-error").text,
         message="a removed passkey was not refused on the page")
    # The button asks again (modal, not autofill): refused the same way.
    driver.execute_script("document.getElementById('passkey-error').hidden = true;")
    driver.find_element(By.ID, "passkey-button").click()
    wait(lambda: visible("passkey-error") and "not registered" in driver.find_element(By.ID, "passkey-error").text,
         message="the button's sign-in with a removed passkey was not refused")
    print("RESULT " + json.dumps(result), flush=True)
finally:
    driver.quit()
