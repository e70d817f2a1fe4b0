//! Addresses and hosts: which IP addresses count as the public internet ([`classify`]), and
//! how hosts are written and matched ([`HostPattern`]). The web tool's network policy and the
//! sandbox's proxy judge addresses with the same classes, and every allow-list of hosts is
//! read by the same functions.

mod address;
mod host;

pub use address::{
    AddressClass, CLOUD_METADATA_V4, CLOUD_METADATA_V6, classify, classify_v4, classify_v6,
    embedded_ipv4, parse_ip_host, parse_ipv4_loose,
};
pub use host::{
    HostPattern, host_and_port, host_of_url, normalize_host, parse_port, split_host_port,
};
