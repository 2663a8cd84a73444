//! The network: packets, the topology graph with its routes, and the links that move packets.

pub mod flow_map;
pub mod link;
pub mod link_hook;
pub mod packet;
pub mod pipe;
pub mod topology;
