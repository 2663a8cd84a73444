//! # aqmlab-live
//!
//! aqmlab's user-space bottleneck: real packets from the Linux kernel's TCP go through the very
//! qdiscs the simulator runs (`aqmlab_core::qdisc`, built from a scenario's `qdisc` table), with
//! the monotonic clock as their time.
//!
//! ```text
//! ns a (senders) ── dev_a (TUN) ──► classify ─► qdisc ─► serialiser at rate ─► forward delay ─► dev_b (TUN) ── ns b (receivers)
//!                   dev_a ◄── reverse delay (optional serialiser) ◄── dev_b
//! ```
//!
//! Modules, each with one job:
//! - [`ip`]: the header fields read (size, ECN, ports) and CE written (RFC 1624 checksum update);
//! - [`config`]: the JSON configuration, validated with key paths;
//! - [`bottleneck`]: the sans-IO core, driven by `(time, direction, bytes)` and `poll(time)`;
//! - [`trace`]: the per-call trace and its parity check against `replay`;
//! - [`tun`], [`run`] (Linux): the two TUN devices and the packet loop.
//!
//! ## Why TUN, not veth + packet sockets
//! A TUN device is a point-to-point IP interface whose other end is a file descriptor: no
//! link layer, so no ARP or neighbour tables to emulate or leak; the bottleneck sees exactly the
//! IP packets the kernel routes to it; a non-persistent TUN device exists only while its fd is
//! open, so a killed bottleneck (even SIGKILL) leaves no interface behind, in any namespace; and
//! no host interface is bridged or touched: the two devices are created and moved into the
//! run's own namespaces. veth pairs would persist after a kill and need packet sockets with
//! their own offload and filtering settings.
//!
//! ## No GSO/TSO super-packets
//! The devices are opened with `IFF_TUN | IFF_NO_PI` only, never `IFF_VNET_HDR` or
//! `TUNSETOFFLOAD`, so the kernel offers them no offloads: TCP's 64 KB GSO segments are cut to
//! MTU-sized packets before they reach the device, and every packet the AQM judges is one
//! packet of at most the MTU, as on a real link. (With offloads, one "packet" could carry 40
//! segments and a drop or mark would hit them all.)
//!
//! ## Time and its resolution
//! One monotonic clock read per batch of reads; departures (end of serialisation + propagation
//! delay) are computed, and the loop sleeps in `ppoll` with a nanosecond timeout until the
//! earliest one, with the thread's timer slack set to 1 ns for the run. How late packets are
//! written after their computed time is measured on every run (`loop.max_late_ns`,
//! `loop.mean_late_ns` in the result). On the 2-core development machine under a load average of
//! 15 to 19, with `realtime_priority` set: mean 0.02 to 0.06 ms, at most 0.24 ms on an idle path
//! and a few ms under gigabit load; at normal priority, mean 0.2 to 0.5 ms, at most 4 to 6 ms
//! (`docs/live.md`, "The bottleneck").
//!
//! ## What is not carried
//! IPv6 packets are queued and marked like IPv4 (ECN in the traffic class, ports when TCP or
//! UDP follows the fixed header), but extension headers are not walked. Packets that are not
//! well-formed IP, and those that match no configured flow (ICMP, strays), go through the same
//! queue as flow "other" with the default delays and are counted apart. The qdisc is built
//! without per-flow build information, as `replay` builds it: CHOKe-like algorithms are
//! unaffected; Chablis and CSFQ, which read per-flow RTTs or rate labels, are not meaningful
//! live.

pub mod bottleneck;
pub mod config;
pub mod ip;
pub mod trace;

#[cfg(target_os = "linux")]
pub mod run;
#[cfg(target_os = "linux")]
pub mod tun;

pub use bottleneck::{Bottleneck, Dir, LoopStats, OTHER};
pub use config::Config;
