//! The network: packets, links and routes.

pub mod packet;
