"""A traced link's departures as a pcap file that Wireshark and ``tshark`` open.

The simulator's packets carry no real headers, so each is written as an IPv4 + TCP packet whose
fields say what the simulator knows: source ``10.1.X.Y`` and destination ``10.2.X.Y`` for flow
``256·X + Y`` (ACKs the other way), ports 10000 + flow -> 5001, the TCP sequence number (or ACK
number) in segments as the simulator counts them, the ECN codepoint in the IP header, and the
packet's size as its length on the wire. Only the headers are stored (``snaplen`` 40 bytes, the
original length kept), so a million packets make about 56 MB.

One record per ``dequeue`` event of the link (a packet that went onto the wire), stamped with
the start of its transmission; drops and marks stay in ``packet_trace.parquet``.

>>> import pandas as pd
>>> t = pd.DataFrame({"link": ["bottleneck"] * 2, "t_s": [0.5, 0.75], "event": ["dequeue"] * 2,
...                   "flow": [3, 3], "kind": ["data", "data"], "seq": [0, 1],
...                   "size_bytes": [1040, 1040], "ecn": ["ect0", "ce"]})
>>> len(packets(t, "bottleneck"))
2
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Bytes of header stored per packet: IPv4 (20) + TCP (20).
SNAPLEN = 40
_LINKTYPE_RAW = 101  # raw IPv4/IPv6, no link-layer header
_ECN_BITS = {"not_ect": 0, "ect1": 1, "ect0": 2, "ce": 3}
_TCP_ACK, _TCP_PSH = 0x10, 0x08


def packets(trace: pd.DataFrame, link: str) -> pd.DataFrame:
    """The rows of ``trace`` (a ``packet_trace`` table) that a capture on ``link`` sees."""
    rows = trace[(trace["link"] == link) & (trace["event"] == "dequeue")]
    return rows.sort_values("t_s", kind="stable")


def _checksum(header: bytes) -> int:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _headers(flow: int, ack: bool, seq: int, size: int, ecn: str, ident: int) -> bytes:
    hi, lo = (flow >> 8) & 0xFF, flow & 0xFF
    data_src, data_dst = bytes((10, 1, hi, lo)), bytes((10, 2, hi, lo))
    src, dst = (data_dst, data_src) if ack else (data_src, data_dst)
    sport, dport = 10000 + (flow % 50000), 5001
    if ack:
        sport, dport = dport, sport
    total = max(min(size, 0xFFFF), SNAPLEN)
    ip = struct.pack(
        "!BBHHHBBH4s4s", 0x45, _ECN_BITS.get(ecn, 0), total, ident & 0xFFFF, 0, 64, 6, 0, src, dst
    )
    ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
    seq_no, ack_no, flags = (0, seq, _TCP_ACK) if ack else (seq, 0, _TCP_PSH | _TCP_ACK)
    tcp = struct.pack(
        "!HHIIBBHHH",
        sport,
        dport,
        seq_no & 0xFFFFFFFF,
        ack_no & 0xFFFFFFFF,
        5 << 4,
        flags,
        65535,
        0,
        0,
    )
    return ip + tcp


def write(trace: pd.DataFrame, link: str, path: str | Path) -> int:
    """Writes the departures of ``link`` from ``trace`` to ``path`` (pcap, microsecond
    timestamps, raw IPv4); returns the number of packets written."""
    rows = packets(trace, link)
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, SNAPLEN, _LINKTYPE_RAW)]
    columns = zip(
        rows["t_s"],
        rows["flow"],
        rows["kind"],
        rows["seq"],
        rows["size_bytes"],
        rows["ecn"],
        strict=True,
    )
    for i, (t_s, flow, kind, seq, size, ecn) in enumerate(columns):
        header = _headers(int(flow), kind == "ack", int(seq), int(size), str(ecn), i)
        micros = round(float(t_s) * 1e6)
        wire = max(int(size), SNAPLEN)
        out.append(struct.pack("<IIII", micros // 1_000_000, micros % 1_000_000, SNAPLEN, wire))
        out.append(header)
    Path(path).write_bytes(b"".join(out))
    return len(rows)


def file_name(link: str) -> str:
    """The pcap's file name for a link (``bottleneck.pcap``, ``R0-R1.pcap`` for ``R0->R1``)."""
    safe = "".join(c if c.isalnum() or c in "._" else "-" for c in link.replace("->", "-"))
    return f"{safe}.pcap"
