//! Transports: TCP and unresponsive senders.

pub mod tcp;
pub mod udp;
