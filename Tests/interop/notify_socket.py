"""A stand-in for systemd's notification socket (sd_notify(3)) in the tests.

  notify_socket.py PATH SECONDS  -> binds a datagram socket at PATH, prints every message it
                                    receives (newlines as "|"), and exits 0 once one holds
                                    STOPPING=1, 1 if SECONDS pass first
"""
import os
import socket
import sys
import time


def main() -> int:
    path, seconds = sys.argv[1], float(sys.argv[2])
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    os.chmod(path, 0o666)
    print("listening", flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        server.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            message = server.recv(4096).decode()
        except socket.timeout:
            break
        print(message.replace("\n", "|"), flush=True)
        if "STOPPING=1" in message.split("\n"):
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
