"""The hosts a tenant admin might give as an outbound target, and whether each is inside
some network, judged by Python's own parts rather than Tessera's:

- an address literal is read by the system's resolver (`socket.getaddrinfo` with
  AI_NUMERICHOST), so `127.1`, `2130706433`, `0177.0.0.1`, `0x7f.1` are the forms it takes;
- an address is inside when Python's `ipaddress` says it is not global, or is multicast,
  reserved or (IPv6) site-local; an IPv6 form carrying an IPv4 address (mapped, NAT64 64:ff9b::/96, 6to4) is
  judged by that address. One deliberate addition: all of 192.0.0.0/24 is inside (IANA's
  registry; Python 3.11 lists only 192.0.0.0/29 and 192.0.0.170/31);
- `localhost` and names under it are inside; other names are not judged (null): the server
  resolves them when it calls.

Prints one JSON array of [host, true|false|null]: edge cases, then a seeded random corpus
of IPv4 addresses in every textual form and IPv6 addresses around every special range.
"""
import ipaddress
import json
import random
import socket
import sys

NAT64 = ipaddress.ip_network("64:ff9b::/96")
PROTOCOL_ASSIGNMENTS = ipaddress.ip_network("192.0.0.0/24")


def inside(address):
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return inside(address.ipv4_mapped)
        if address in NAT64:
            return inside(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        if address.sixtofour is not None:
            return inside(address.sixtofour)
    elif address in PROTOCOL_ASSIGNMENTS:
        return True
    site_local = address.version == 6 and address.is_site_local
    return not address.is_global or address.is_multicast or address.is_reserved or site_local


def judge(host):
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        infos = socket.getaddrinfo(host, None, flags=socket.AI_NUMERICHOST, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return None
    return any(inside(ipaddress.ip_address(info[4][0].split("%")[0])) for info in infos)


def ipv4_forms(value, rng):
    """The same IPv4 address as the resolver reads it: dotted, one number, two or three
    parts, each part decimal, octal (leading 0) or hexadecimal (0x)."""
    def part(number):
        style = rng.choice(("dec", "oct", "hex"))
        if style == "oct" and number:
            return "0" + format(number, "o")
        if style == "hex":
            return "0x" + format(number, "x")
        return str(number)

    a, b, c, d = value.to_bytes(4, "big")
    layouts = [
        [a, b, c, d],
        [value],
        [a, value & 0xFFFFFF],
        [a, b, value & 0xFFFF],
    ]
    return [".".join(part(n) for n in layout) for layout in layouts]


def main():
    rng = random.Random(20261127)
    hosts = [
        "127.0.0.1", "127.1", "2130706433", "0177.0.0.1", "0x7f.1", "0x7f000001", "127.255.255.254",
        "::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:8.8.8.8", "::", "0.0.0.0", "0",
        "169.254.169.254", "10.0.0.1", "172.16.0.1", "172.31.255.255", "172.32.0.1", "192.168.1.1",
        "100.64.0.1", "100.127.255.255", "100.128.0.1", "192.0.0.8", "192.0.0.170", "192.0.2.1",
        "198.18.0.1", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250", "240.0.0.1",
        "255.255.255.255", "8.8.8.8", "1.1.1.1", "93.184.216.34",
        "fe80::1", "fe80::1%1", "fec0::1", "fc00::1", "fd12:3456::1", "ff02::1", "100::1", "2001:db8::1",
        "2001::1", "2001:1ff::1", "2001:200::1", "64:ff9b::7f00:1", "64:ff9b::808:808", "64:ff9b:1::1",
        "2002:7f00:1::1", "2002:808:808::1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::8.8.8.8",
        "localhost", "LOCALHOST", "localhost.", "api.localhost", "example.com", "id.example", "127.0.0.1.nip.io",
    ]
    specials = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
        "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    ]
    for text in specials:
        network = ipaddress.ip_network(text)
        first, last = int(network.network_address), int(network.broadcast_address)
        for value in (first - 1, first, rng.randint(first, last), last, last + 1):
            if 0 <= value <= 0xFFFFFFFF:
                hosts.extend(ipv4_forms(value, rng))
    for _ in range(400):
        hosts.extend(ipv4_forms(rng.getrandbits(32), rng))
    prefixes6 = [
        "::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
        "2002::/16", "2000::/3", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8", "4000::/3",
    ]
    for text in prefixes6:
        network = ipaddress.ip_network(text)
        for _ in range(20):
            value = int(network.network_address) | (rng.getrandbits(128) & int(network.hostmask))
            address = ipaddress.IPv6Address(value)
            hosts.append(str(address))
            hosts.append(address.exploded)
    json.dump([[host, judge(host)] for host in hosts], sys.stdout)


if __name__ == "__main__":
    main()
