"""Debian's exim4 as an SMTP server for the suite, in a local-only configuration of its own.

    python3 exim_sink.py DIRECTORY

Writes a certificate (tls_check.py's), an exim configuration and its spool, log and
maildir under DIRECTORY, lists the configuration in /etc/exim4/trusted_configs (so exim
keeps the privileges it needs with -C; needs root, or sudo without a password), and runs
`exim4 -bdf` in the foreground on 127.0.0.1 on a free port, written to DIRECTORY/port.
It takes mail for example.test only, from 127.0.0.1 only, only after STARTTLS, and
delivers it into DIRECTORY/mail (maildir: new/)."""

import os
import pwd
import socket
import subprocess
import sys

import tls_check

DIRECTORY = os.path.abspath(sys.argv[1])
USER = "Debian-exim"


def privileged(arguments):
    """Runs a command as root: directly, or through sudo without a password."""
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    subprocess.run(prefix + arguments, check=True)


for name in ["spool", "log", "mail"]:
    os.makedirs(os.path.join(DIRECTORY, name), exist_ok=True)
tls_check.make(DIRECTORY)
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
configuration = os.path.join(DIRECTORY, "exim.conf")
with open(configuration, "w") as file:
    file.write(f"""
primary_hostname = exim.tessera.test
domainlist local_domains = example.test
daemon_smtp_ports = {port}
local_interfaces = 127.0.0.1
spool_directory = {DIRECTORY}/spool
log_file_path = {DIRECTORY}/log/%slog
exim_user = {USER}
exim_group = {USER}
tls_advertise_hosts = *
tls_certificate = {DIRECTORY}/cert.pem
tls_privatekey = {DIRECTORY}/key.pem
acl_smtp_mail = acl_check_mail
acl_smtp_rcpt = acl_check_rcpt
begin acl
acl_check_mail:
  deny    !encrypted = *
          message = STARTTLS first
  accept
acl_check_rcpt:
  accept  domains = +local_domains
          hosts = 127.0.0.1
  deny    message = relay not permitted
begin routers
local_mail:
  driver = accept
  domains = +local_domains
  transport = maildir
begin transports
maildir:
  driver = appendfile
  directory = {DIRECTORY}/mail
  maildir_format
  create_directory
  user = {USER}
  group = {USER}
  mode = 0644
  envelope_to_add
  return_path_add
""")
# exim reads its key and writes its spool as its own user; its configuration belongs to root.
exim = pwd.getpwnam(USER)
privileged(["chown", "-R", f"{exim.pw_uid}:{exim.pw_gid}", DIRECTORY])
privileged(["chown", "root:root", configuration])
privileged(["chmod", "0755", DIRECTORY])
privileged(["sh", "-c", f"grep -qxF '{configuration}' /etc/exim4/trusted_configs 2>/dev/null || echo '{configuration}' >> /etc/exim4/trusted_configs"])
with open(os.path.join("/tmp", f"exim-port-{os.getpid()}"), "w") as file:
    file.write(str(port))
privileged(["cp", f"/tmp/exim-port-{os.getpid()}", os.path.join(DIRECTORY, "port")])
os.unlink(f"/tmp/exim-port-{os.getpid()}")
prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
os.execvp(prefix[0] if prefix else "exim4", prefix + ["exim4", "-C", configuration, "-bdf", "-q1s"])
