# How `npm run scan` (scripts/security-scan.mjs) runs wapiti:
#
#   python3 scripts/security-scan-wapiti.py LOG /path/to/wapiti [wapiti's arguments]
#
# 1. A network guard, the Python twin of packages/clerk-emulator/testing/network-guard.cjs.
# Before wapiti's code is loaded, every name lookup of a host that is not loopback and every
# connection to an address outside 127.0.0.0/8 (or ::1) is refused, and
# written to LOG, which the scan script reads and fails on. Wapiti has its
# own reasons to go out: a module's database download from GitHub when it is
# built (wapp, nikto: even when the module is not selected), crash reports to
# its author's server, the SSRF and XXE modules' default endpoint, the Open
# Redirect payload's host. Nothing of a scan may leave this machine.
import ipaddress
import runpy
import socket
import sys

MARK = "NETWORK GUARD: blocked"
LOG = sys.argv[1]
LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None:
        return True  # getaddrinfo(None, port): the local host
    host = str(host).strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def refuse(what: str, host) -> None:
    line = f"{MARK} {what} {host}"
    sys.stderr.write(line + "\n")
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(line + "\n")


_getaddrinfo = socket.getaddrinfo


def guarded_getaddrinfo(host, *args, **kwargs):
    if not is_loopback(host):
        refuse("name lookup of", host)
        raise socket.gaierror(socket.EAI_NONAME, f"{MARK}: {host} is not loopback")
    return _getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = guarded_getaddrinfo
_gethostbyname = socket.gethostbyname


def guarded_gethostbyname(host):
    if not is_loopback(host):
        refuse("name lookup of", host)
        raise socket.gaierror(socket.EAI_NONAME, f"{MARK}: {host} is not loopback")
    return _gethostbyname(host)


socket.gethostbyname = guarded_gethostbyname


def guard_address(address) -> None:
    if isinstance(address, tuple) and address and not is_loopback(address[0]):
        refuse("connection to", address[0])
        raise ConnectionRefusedError(f"{MARK}: {address[0]} is not loopback")


class GuardedSocket(socket.socket):
    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            guard_address(address)
        return super().connect(address)

    def connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            guard_address(address)
        return super().connect_ex(address)

    def sendto(self, data, *args):
        if self.family in (socket.AF_INET, socket.AF_INET6) and args:
            guard_address(args[-1])
        return super().sendto(data, *args)


socket.socket = GuardedSocket


# 2. Wapiti 3.0.4's exclusions (-x) on Python 3.11: it compiles each pattern
# with its flags at the end (`…\Z(?ms)`), which Python 3.11 refuses, so any
# -x stops the scan. The same pattern with the flags first.
def fix_wildcard_translate() -> None:
    import re

    try:
        from wapitiCore.net import crawler
    except ImportError:
        return
    try:
        crawler.wildcard_translate("a*")
    except re.error:

        def wildcard_translate(pattern: str):
            return re.compile("(?ms)" + "".join(".*" if c == "*" else re.escape(c) for c in pattern) + r"\Z")

        crawler.wildcard_translate = wildcard_translate


if __name__ == "__main__":
    entry = sys.argv[2]
    sys.argv = [entry, *sys.argv[3:]]
    fix_wildcard_translate()
    runpy.run_path(entry, run_name="__main__")
