"""The browser's part of a Tessera login, shared by the relying-party scripts: open the
authorization URL with a cookie jar, print the authentication link the page shows (the
Swift test's device answers it), follow the page's status until the device approved,
and take the completion's redirect to the service."""
import html
import re
import time

import requests

TIMEOUT = 45


def page_value(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    if not match:
        raise SystemExit(f"FAILED: the login page lacks {pattern}")
    return html.unescape(match.group(1))


def follow(browser: requests.Session, page: requests.Response, deadline_seconds: float = 60) -> str:
    """From a login page already fetched with `browser`: the Location the completion redirects to."""
    if page.status_code != 200:
        raise SystemExit(f"FAILED: login page: {page.status_code} {page.text[:200]}")
    # The number the page shows, for a service with number matching: the user picks it on the device.
    match = re.search(r'data-match-code="([0-9]+)"', page.text)
    if match:
        print("MATCH_CODE " + match.group(1), flush=True)
    print("AUTHENTICATION_URL " + page_value(r'id="authentication-url">([^<]*)<', page.text), flush=True)
    status_url = page_value(r'data-status-url="([^"]*)"', page.text)
    complete_url = page_value(r'data-complete-url="([^"]*)"', page.text)
    deadline = time.time() + deadline_seconds
    while True:
        status = browser.get(status_url, timeout=TIMEOUT).json()["status"]
        if status == "approved":
            break
        if status not in ("pending", "claimed") or time.time() > deadline:
            raise SystemExit(f"FAILED: the login ended as {status}")
        time.sleep(0.2)
    redirect = browser.get(complete_url, allow_redirects=False, timeout=TIMEOUT)
    if redirect.status_code != 302:
        raise SystemExit(f"FAILED: completion: {redirect.status_code}")
    return redirect.headers["Location"]


def login(url: str) -> str:
    """Opens `url` in a fresh browser and follows the login to the service's redirect."""
    browser = requests.Session()
    return follow(browser, browser.get(url, timeout=TIMEOUT))
