"""The fields of Linux's ``struct tcp_info`` (``getsockopt(TCP_INFO)``) a live run reports.

Offsets from ``include/uapi/linux/tcp.h``; a field is read only when the running kernel's
struct is long enough to hold it (``tcpi_total_rto`` came with Linux 6.7).
"""

from __future__ import annotations

import socket
import struct

#: name -> (byte offset, struct format)
FIELDS: dict[str, tuple[int, str]] = {
    "ca_state": (1, "B"),
    "snd_mss": (16, "I"),
    "rtt_us": (68, "I"),
    "rttvar_us": (72, "I"),
    "snd_ssthresh": (76, "I"),
    "snd_cwnd": (80, "I"),
    "total_retrans": (100, "I"),
    "bytes_acked": (120, "Q"),
    "segs_out": (136, "I"),
    "min_rtt_us": (148, "I"),
    "data_segs_out": (156, "I"),
    "delivered": (192, "I"),
    "delivered_ce": (196, "I"),
    "bytes_sent": (200, "Q"),
    "bytes_retrans": (208, "Q"),
    "total_rto": (240, "H"),
}


def parse(raw: bytes) -> dict[str, int]:
    out = {}
    for name, (off, fmt) in FIELDS.items():
        end = off + struct.calcsize(fmt)
        if len(raw) >= end:
            out[name] = struct.unpack_from("=" + fmt, raw, off)[0]
    return out


def read(sock: socket.socket) -> dict[str, int]:
    return parse(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 512))


__all__ = ["FIELDS", "parse", "read"]
