"""One live run's network: namespaces, the bottleneck's devices, addresses, sysctls, and their
removal on every way out.

:class:`Network` is a context manager. On entry it first removes the leftovers of killed runs
(:func:`aqmlab.live.owner.sweep`), writes this run's ownership record, creates the namespaces,
has the bottleneck create its TUN devices, moves them in and configures them; on exit (normal,
exception, Ctrl-C, SIGTERM turned into ``KeyboardInterrupt``) it kills every process inside the
namespaces, closes the bottleneck (its non-persistent TUN devices vanish with their fds),
deletes the namespaces and then the record.

Offloads: the bottleneck opens its TUN devices without ``IFF_VNET_HDR`` and never calls
``TUNSETOFFLOAD``, so they offer the kernel no TSO/GSO/checksum offload: TCP's GSO
super-packets are cut to MTU-sized packets before the device, and the AQM judges one real
packet at a time (docs/live.md says how this was checked).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable
from types import TracebackType
from typing import Any, Protocol

from aqmlab.live import netns, owner, preflight
from aqmlab.live.plan import MTU


class Bottleneck(Protocol):
    """What the live run needs of the dataplane (``aqmlab._core.LiveBottleneck``)."""

    def devices(self) -> tuple[str, str]: ...
    def run(self, seconds: float) -> None: ...
    def stop(self) -> None: ...
    def result(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


def new_token() -> str:
    """Six hex digits: short enough for 15-character device names, and unlikely to repeat."""
    return secrets.token_hex(3)


class Network:
    """The namespaces and devices of one run (see the module's docstring)."""

    def __init__(
        self,
        make_bottleneck: Callable[[str, str], Bottleneck],
        *,
        ecn_route: bool,
        token: str | None = None,
    ) -> None:
        self.token = token or new_token()
        self.ns_a, self.ns_b = netns.names(self.token)
        self.dev_a, self.dev_b = netns.device_names(self.token)
        self._make = make_bottleneck
        self._ecn_route = ecn_route
        self.bottleneck: Bottleneck | None = None
        self.swept: list[str] = []
        self.congestion_controls: tuple[str, ...] = ()

    def __enter__(self) -> Network:
        self.swept = owner.sweep()
        owner.claim(self.token, [self.ns_a, self.ns_b], [self.dev_a, self.dev_b])
        try:
            self._build()
        except BaseException:
            self.teardown()
            raise
        return self

    def _build(self) -> None:
        for ns in (self.ns_a, self.ns_b):
            netns.create(ns)
            # IPv4 only: no router solicitations or MLD reports on the bottleneck's devices.
            netns.sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")
            netns.sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")
        self.bottleneck = self._make(self.dev_a, self.dev_b)
        dev_a, dev_b = self.bottleneck.devices()
        netns.attach(dev_a, self.ns_a, [netns.ADDR_A], MTU)
        netns.attach(dev_b, self.ns_b, [netns.ADDR_B, netns.ADDR_B_ECN], MTU)
        if self._ecn_route:
            netns.route_with_ecn(self.ns_a, netns.ADDR_B_ECN, dev_a)
        # Senders request ECN only over the ECN route; receivers accept it when asked.
        netns.sysctl(self.ns_a, "net.ipv4.tcp_ecn", "0")
        netns.sysctl(self.ns_b, "net.ipv4.tcp_ecn", "1")
        self.congestion_controls = preflight.congestion_controls(self.ns_a)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.teardown()

    def teardown(self) -> None:
        """Removes everything this run made; safe to call twice, never raises."""
        for ns in (self.ns_a, self.ns_b):
            with contextlib.suppress(Exception):
                netns.kill_processes(ns)
        if self.bottleneck is not None:
            with contextlib.suppress(Exception):
                self.bottleneck.stop()
            with contextlib.suppress(Exception):
                self.bottleneck.close()
        present = set(netns.list_namespaces())
        for ns in (self.ns_a, self.ns_b):
            if ns in present:
                with contextlib.suppress(Exception):
                    netns.delete(ns)
        host = set(netns.list_devices())
        for dev in (self.dev_a, self.dev_b):
            if dev in host:
                netns.ip("link", "delete", dev, check=False)
        owner.release(self.token)


__all__ = ["Bottleneck", "Network", "new_token"]
