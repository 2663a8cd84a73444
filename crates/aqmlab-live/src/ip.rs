//! The few facts the bottleneck reads from an IP packet, and the one field it writes.
//!
//! Read: the version, the packet's length (the IPv4 total length), the ECN codepoint (the low
//! two bits of the IPv4 TOS byte / IPv6 traffic class, RFC 3168 §5) and, for TCP and UDP, the
//! ports. Written: CE into an IPv4 header, with the header checksum updated incrementally
//! (RFC 1624, eqn. 3: `HC' = ~(~HC + ~m + m')`), so a marked packet costs two 16-bit additions
//! instead of a sum over the header. IPv6 packets are read (ECN, and ports when TCP or UDP
//! follows the fixed header directly; no extension-header chain is walked) and CE is written
//! into their traffic class, which no checksum covers.

use aqmlab_core::net::packet::Ecn;

/// Transport protocol numbers the classifier knows (IANA).
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// What the bottleneck needs to know about one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Bytes the packet occupies on the link: the IPv4 total length (IPv6: 40 + payload
    /// length), or the buffer's length for anything that is not a well-formed IP packet.
    pub size: u32,
    pub ecn: Ecn,
    /// (protocol, source port, destination port) for TCP and UDP (first fragment only).
    pub ports: Option<(u8, u16, u16)>,
    /// Whether CE can be written into this packet (a well-formed IPv4 or IPv6 header).
    pub ip: bool,
}

/// The codepoint of the two ECN bits (RFC 3168: 00 Not-ECT, 10 ECT(0), 01 ECT(1), 11 CE).
pub fn ecn_of(bits: u8) -> Ecn {
    match bits & 0b11 {
        0b00 => Ecn::NotEct,
        0b10 => Ecn::Ect,
        0b01 => Ecn::Ect1,
        _ => Ecn::Ce,
    }
}

/// Reads the header of `pkt`. Never fails: a buffer that is not a well-formed IPv4/IPv6 packet
/// is described as Not-ECT, unmarkable, without ports, of its own length.
pub fn parse(pkt: &[u8]) -> Header {
    let other = Header {
        size: pkt.len() as u32,
        ecn: Ecn::NotEct,
        ports: None,
        ip: false,
    };
    let Some(&first) = pkt.first() else {
        return other;
    };
    match first >> 4 {
        4 => {
            let ihl = (first & 0x0f) as usize * 4;
            if ihl < 20 || pkt.len() < ihl {
                return other;
            }
            let total = u16::from_be_bytes([pkt[2], pkt[3]]) as usize;
            if total < ihl || total > pkt.len() {
                return other;
            }
            let frag_offset = u16::from_be_bytes([pkt[6], pkt[7]]) & 0x1fff;
            let proto = pkt[9];
            let ports = (frag_offset == 0)
                .then(|| ports_at(&pkt[..total], ihl, proto))
                .flatten();
            Header {
                size: total as u32,
                ecn: ecn_of(pkt[1]),
                ports,
                ip: true,
            }
        }
        6 => {
            if pkt.len() < 40 {
                return other;
            }
            let total = 40 + u16::from_be_bytes([pkt[4], pkt[5]]) as usize;
            if total > pkt.len() {
                return other;
            }
            let tclass = (first << 4) | (pkt[1] >> 4);
            Header {
                size: total as u32,
                ecn: ecn_of(tclass),
                ports: ports_at(&pkt[..total], 40, pkt[6]),
                ip: true,
            }
        }
        _ => other,
    }
}

fn ports_at(pkt: &[u8], off: usize, proto: u8) -> Option<(u8, u16, u16)> {
    if !matches!(proto, PROTO_TCP | PROTO_UDP) || pkt.len() < off + 4 {
        return None;
    }
    let port = |i: usize| u16::from_be_bytes([pkt[off + i], pkt[off + i + 1]]);
    Some((proto, port(0), port(2)))
}

/// Writes CE into the packet's ECN field (IPv4: fixing the header checksum incrementally).
/// Returns false, changing nothing, if `pkt` is not a well-formed IP packet (see [`parse`]).
pub fn set_ce(pkt: &mut [u8]) -> bool {
    if !parse(pkt).ip {
        return false;
    }
    if pkt[0] >> 4 == 6 {
        pkt[1] |= 0x30;
        return true;
    }
    // The TOS byte is the low half of the header's first 16-bit word.
    let old = u16::from_be_bytes([pkt[0], pkt[1]]);
    pkt[1] |= 0b11;
    let new = u16::from_be_bytes([pkt[0], pkt[1]]);
    let hc = u16::from_be_bytes([pkt[10], pkt[11]]);
    // RFC 1624 eqn. 3 in one's-complement arithmetic: HC' = ~(~HC + ~m + m').
    let mut sum = (!hc) as u32 + (!old) as u32 + new as u32;
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let hc_new = !(sum as u16);
    pkt[10..12].copy_from_slice(&hc_new.to_be_bytes());
    true
}

/// The IPv4 header checksum computed from scratch (RFC 791): what a receiver verifies.
pub fn ipv4_header_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, w) in header.chunks(2).enumerate() {
        if i == 5 {
            continue; // the checksum field itself counts as zero
        }
        sum += u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Builders of packets for tests (of this crate and its users).
pub mod build {
    use super::*;

    /// An IPv4 packet of `size` bytes (>= 28) from 10.0.0.1 to 10.0.0.2 carrying `proto` with
    /// the given ports, ECN bits `ecn_bits`, a TTL of `ttl` and a correct header checksum.
    pub fn ipv4(size: usize, proto: u8, sport: u16, dport: u16, ecn_bits: u8, ttl: u8) -> Vec<u8> {
        let mut p = vec![0u8; size.max(28)];
        p[0] = 0x45;
        p[1] = ecn_bits & 0b11;
        let len = p.len() as u16;
        p[2..4].copy_from_slice(&len.to_be_bytes());
        p[4..6].copy_from_slice(&0x1234u16.to_be_bytes());
        p[6] = 0x40; // DF
        p[8] = ttl;
        p[9] = proto;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 0, 2]);
        p[20..22].copy_from_slice(&sport.to_be_bytes());
        p[22..24].copy_from_slice(&dport.to_be_bytes());
        let c = ipv4_header_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        p
    }
}

#[cfg(test)]
mod tests {
    use super::build::ipv4;
    use super::*;

    #[test]
    fn reads_size_ecn_and_ports() {
        let p = ipv4(1040, PROTO_TCP, 40000, 5001, 0b10, 64);
        let h = parse(&p);
        assert_eq!(h.size, 1040);
        assert_eq!(h.ecn, Ecn::Ect);
        assert_eq!(h.ports, Some((PROTO_TCP, 40000, 5001)));
        assert!(h.ip);
        assert_eq!(parse(&ipv4(60, PROTO_UDP, 1, 2, 0b01, 64)).ecn, Ecn::Ect1);
        assert_eq!(parse(&ipv4(60, 1, 1, 2, 0b11, 64)).ports, None); // ICMP
                                                                     // A later fragment carries no transport header.
        let mut frag = ipv4(60, PROTO_UDP, 1, 2, 0, 64);
        frag[7] = 10;
        assert_eq!(parse(&frag).ports, None);
        // Malformed: too short, bad IHL, total length beyond the buffer, unknown version.
        for bad in [
            &p[..10],
            &[0x41; 30][..],
            &p[..1000],
            &[0x20; 60][..],
            &[][..],
        ] {
            let h = parse(bad);
            assert!(!h.ip);
            assert_eq!(h.size, bad.len() as u32);
            assert_eq!(h.ecn, Ecn::NotEct);
        }
    }

    /// The incremental update agrees with a full recompute for every TOS/ECN start and many
    /// header contents (TTL and id vary the checksum, including its 0x0000/0xffff edges).
    #[test]
    fn ce_with_incremental_checksum_equals_full_recompute() {
        let mut checked = 0;
        for ecn in 0..4u8 {
            for ttl in 0..=255u8 {
                for dscp in [0u8, 0x04, 0xb8, 0xfc] {
                    let mut p = ipv4(100, PROTO_TCP, 1000 + ttl as u16, 5001, ecn, ttl);
                    p[1] |= dscp;
                    let c = ipv4_header_checksum(&p[..20]);
                    p[10..12].copy_from_slice(&c.to_be_bytes());
                    assert!(set_ce(&mut p));
                    assert_eq!(p[1] & 0b11, 0b11);
                    assert_eq!(p[1] & 0xfc, dscp, "DSCP untouched");
                    let want = ipv4_header_checksum(&p[..20]);
                    let got = u16::from_be_bytes([p[10], p[11]]);
                    // 0x0000 and 0xffff are the same number in one's complement.
                    assert!(
                        got == want || (got ^ want == 0xffff && (got == 0 || want == 0)),
                        "ecn {ecn} ttl {ttl}: {got:#06x} vs {want:#06x}"
                    );
                    assert_eq!(parse(&p).ecn, Ecn::Ce);
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 4 * 256 * 4);
    }

    #[test]
    fn ipv6_ecn_and_ports() {
        let mut p = vec![0u8; 60];
        p[0] = 0x60 | 0x0b; // traffic class high nibble 0xb
        p[1] = 0x20; // traffic class low nibble 0x2: ECN bits 10 = ECT(0)
        p[4..6].copy_from_slice(&20u16.to_be_bytes());
        p[6] = PROTO_TCP;
        p[40..42].copy_from_slice(&40000u16.to_be_bytes());
        p[42..44].copy_from_slice(&5001u16.to_be_bytes());
        let h = parse(&p);
        assert_eq!((h.size, h.ecn), (60, Ecn::Ect));
        assert_eq!(h.ports, Some((PROTO_TCP, 40000, 5001)));
        assert!(set_ce(&mut p));
        assert_eq!(parse(&p).ecn, Ecn::Ce);
        assert_eq!(p[0], 0x6b, "the traffic class's high bits are untouched");
        assert!(!set_ce(&mut [0x20; 40]));
    }
}
