"""Loopback only: refuse every socket connection that would leave 127.0.0.0/8 or ::1.

Standard library only, so the test session, the benchmarks and the benchmark runner in its
separate virtual environment (which lacks this package) share one implementation::

    uninstall = install(lambda address: ConnectionRefusedError(f"refused {address!r}"))
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable


def is_loopback(address: object) -> bool:
    """True for a loopback ``(host, port, ...)`` address or host string (``localhost`` too)."""
    host = address[0] if isinstance(address, tuple) and address else address
    if not isinstance(host, str):
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def install(refusal: Callable[[object], BaseException]) -> Callable[[], None]:
    """Patch ``socket.socket.connect`` / ``connect_ex`` to raise ``refusal(address)`` for any
    non-loopback IPv4/IPv6 address. Returns a function that restores the originals."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def check(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not is_loopback(address):
            raise refusal(address)

    def connect(self: socket.socket, address: object) -> None:
        check(self, address)
        return original_connect(self, address)

    def connect_ex(self: socket.socket, address: object) -> int:
        check(self, address)
        return original_connect_ex(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]

    def uninstall() -> None:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]

    return uninstall
