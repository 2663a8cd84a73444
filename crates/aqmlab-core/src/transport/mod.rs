//! Transports: TCP and unresponsive senders.

pub mod tcp;
