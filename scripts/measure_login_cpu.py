#!/usr/bin/env python3
"""Measures the server CPU time of one full login (authorize → device → token).

Starts `tessera serve` (release build by default) on a free loopback port with a
fresh data directory, sets up a tenant, a service, a user and an activated device
through the CLI, then runs N complete logins:

  browser GET /authorize → device claim + finish (`tessera device login`) →
  browser status + complete → POST /token (client_secret_basic, PKCE S256)

and reads the server process's user+system CPU time from /proc before and after.
The device's own work (PBKDF2 of the PIN, signing) runs in the CLI process and is
not counted. Usage: scripts/measure_login_cpu.py [--binary PATH] [--logins N]
"""
import argparse
import base64
import hashlib
import html
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import requests


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/release/tessera")
    parser.add_argument("--logins", type=int, default=200)
    args = parser.parse_args()

    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp(prefix="tessera-measure-")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    token = secrets.token_urlsafe(32)
    env = dict(os.environ, TESSERA_ADMIN_TOKEN=token, TESSERA_SERVER=base)
    server = subprocess.Popen(
        [binary, "serve", "--port", str(port), "--data-dir", f"{work}/data", "--log-level", "warning",
         "--rate-limit-per-address", "0", "--rate-limit-per-client", "0"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                if requests.get(base + "/health", timeout=1).ok:
                    break
            except requests.ConnectionError:
                time.sleep(0.1)

        def cli(*arguments: str) -> str:
            return subprocess.run([binary, *arguments], env=env, check=True, capture_output=True, text=True).stdout

        cli("admin", "tenant", "create", "bench")
        service = json.loads(cli("admin", "service", "create", "--tenant", "bench", "--name", "Bench",
                                 "--redirect-uri", "http://127.0.0.1:9/cb", "--policy", "device+pin",
                                 "--attributes", "email", "--json"))
        cli("admin", "user", "create", "--tenant", "bench", "--username", "u", "--attribute", "email=u@example.com")
        invitation = json.loads(cli("admin", "invite", "--tenant", "bench", "--username", "u", "--json"))["url"]
        store = f"{work}/device"
        cli("device", "activate", invitation, "--pin", "246810", "--store", store)

        issuer = f"{base}/t/bench"
        auth = (service["client_id"], service["client_secret"])
        started = time.time()
        cpu_before = cpu_seconds(server.pid)
        for _ in range(args.logins):
            verifier = secrets.token_urlsafe(48)
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            browser = requests.Session()
            page = browser.get(f"{issuer}/authorize", params={
                "response_type": "code", "client_id": service["client_id"], "redirect_uri": "http://127.0.0.1:9/cb",
                "scope": "openid", "state": "s", "nonce": "n", "code_challenge": challenge,
                "code_challenge_method": "S256"}).text
            link = html.unescape(re.search(r'id="authentication-url">([^<]*)<', page).group(1))
            status_url = html.unescape(re.search(r'data-status-url="([^"]*)"', page).group(1))
            complete_url = html.unescape(re.search(r'data-complete-url="([^"]*)"', page).group(1))
            # The device's own work (PBKDF2, signing) runs in the CLI process, not the server.
            device = subprocess.Popen([binary, "device", "login", link, "--pin", "246810", "--store", store],
                                      stdout=subprocess.DEVNULL)
            device.wait()
            assert device.returncode == 0
            assert browser.get(status_url).json()["status"] == "approved"
            location = browser.get(complete_url, allow_redirects=False).headers["Location"]
            code = re.search(r"code=([^&]+)", location).group(1)
            tokens = requests.post(f"{issuer}/token", auth=auth, data={
                "grant_type": "authorization_code", "code": code, "redirect_uri": "http://127.0.0.1:9/cb",
                "code_verifier": verifier})
            assert tokens.ok, tokens.text
        server_cpu = cpu_seconds(server.pid) - cpu_before
        elapsed = time.time() - started
        print(json.dumps({
            "logins": args.logins,
            "server_cpu_seconds": round(server_cpu, 3),
            "server_cpu_ms_per_login": round(1000 * server_cpu / args.logins, 3),
            "wall_seconds": round(elapsed, 1),
        }, indent=2))
        return 0
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
