//! Address classification: which IP addresses count as the public internet.
//!
//! Everything here is a pure function over [`IpAddr`]s and host strings, so the rules can be read
//! and tested without a network. [`classify`] puts an address into one [`AddressClass`];
//! only [`AddressClass::Public`] is reachable by default. IPv6 forms that carry an IPv4 address
//! (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, the NAT64
//! well-known prefix `64:ff9b::/96` and 6to4 `2002::/16`) are unwrapped and judged by the IPv4
//! rule, so `::ffff:127.0.0.1` is loopback like `127.0.0.1`. Only global unicast IPv6 space
//! (`2000::/3`) counts as public; the rest of the IPv6 space is reserved or special.
//!
//! [`parse_ip_host`] reads the host spellings that C resolvers accept as IPv4 addresses
//! (`inet_aton`): decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1` and the short forms
//! `127.1` and `127.0.1`, so such a spelling is judged as the address it stands for and cannot
//! pass a loopback or private address off as a host name.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of address an IP address is, as far as the network policy is concerned.
///
/// Only [`AddressClass::Public`] is reachable without an allow-list entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AddressClass {
    /// A globally routable unicast address.
    Public,
    /// This host: `127.0.0.0/8` and `::1`.
    Loopback,
    /// Private networks: RFC 1918 (`10/8`, `172.16/12`, `192.168/16`), IPv6 unique-local
    /// `fc00::/7`, deprecated site-local `fec0::/10` and local-use NAT64 `64:ff9b:1::/48`.
    Private,
    /// Link-local: `169.254.0.0/16` and `fe80::/10`.
    LinkLocal,
    /// Carrier-grade NAT shared space `100.64.0.0/10` (RFC 6598).
    SharedCgnat,
    /// Multicast: `224.0.0.0/4` and `ff00::/8`.
    Multicast,
    /// The unspecified address `0.0.0.0` or `::` (which reaches this host on Linux).
    Unspecified,
    /// The limited broadcast address `255.255.255.255`.
    Broadcast,
    /// Documentation ranges: `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`,
    /// `3fff::/20`.
    Documentation,
    /// Reserved or special-purpose space: `0/8`, `192.0.0/24`, `192.88.99/24`, `198.18/15`,
    /// `240/4`, IPv6 outside `2000::/3`, `2001::/23` (Teredo, benchmarking, ORCHID), discard
    /// `100::/64`.
    Reserved,
    /// A cloud instance-metadata or platform endpoint (`169.254.169.254`, `169.254.170.2`,
    /// `100.100.100.200`, `168.63.129.16`, `fd00:ec2::254`, ...), which hands out credentials.
    CloudMetadata,
}

impl AddressClass {
    /// Whether the address is on the public internet (the only class reachable by default).
    pub fn is_public(self) -> bool {
        self == AddressClass::Public
    }

    /// A short phrase naming the class, used in refusal messages ("a loopback address").
    pub fn description(self) -> &'static str {
        match self {
            AddressClass::Public => "a public address",
            AddressClass::Loopback => "a loopback address",
            AddressClass::Private => "a private network address",
            AddressClass::LinkLocal => "a link-local address",
            AddressClass::SharedCgnat => "a carrier-grade NAT (shared) address",
            AddressClass::Multicast => "a multicast address",
            AddressClass::Unspecified => "the unspecified address",
            AddressClass::Broadcast => "the broadcast address",
            AddressClass::Documentation => "a documentation-only address",
            AddressClass::Reserved => "a reserved or special-purpose address",
            AddressClass::CloudMetadata => "a cloud metadata endpoint",
        }
    }
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// IPv4 cloud metadata and platform endpoints.
///
/// `169.254.169.254`: AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle instance metadata;
/// `169.254.170.2`: AWS ECS task metadata; `169.254.170.23`: EKS Pod Identity agent;
/// `100.100.100.200`: Alibaba Cloud; `168.63.129.16`: Azure WireServer (a public-looking
/// address); `192.0.0.192`: Oracle Cloud (legacy).
pub const CLOUD_METADATA_V4: [Ipv4Addr; 6] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(169, 254, 170, 23),
    Ipv4Addr::new(100, 100, 100, 200),
    Ipv4Addr::new(168, 63, 129, 16),
    Ipv4Addr::new(192, 0, 0, 192),
];

/// IPv6 cloud metadata endpoints: AWS IMDS `fd00:ec2::254` and EKS Pod Identity `fd00:ec2::23`.
pub const CLOUD_METADATA_V6: [Ipv6Addr; 2] = [
    Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x254),
    Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x23),
];

/// Classify an IP address.
///
/// ```
/// use std::net::IpAddr;
/// use tool_std::trust::net::{classify, AddressClass};
///
/// let ip: IpAddr = "::ffff:10.1.2.3".parse()?;
/// assert_eq!(classify(ip), AddressClass::Private);
/// assert_eq!(classify("1.1.1.1".parse()?), AddressClass::Public);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Whether `ip` lies in `base/prefix_len`.
fn in_v4(ip: Ipv4Addr, base: [u8; 4], prefix_len: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix_len).unwrap_or(0);
    (u32::from(ip) & mask) == (u32::from(Ipv4Addr::from(base)) & mask)
}

/// Whether `ip` lies in `base/prefix_len`.
fn in_v6(ip: Ipv6Addr, base: Ipv6Addr, prefix_len: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix_len).unwrap_or(0);
    (u128::from(ip) & mask) == (u128::from(base) & mask)
}

/// Classify an IPv4 address.
pub fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    use AddressClass::*;
    if CLOUD_METADATA_V4.contains(&ip) {
        return CloudMetadata;
    }
    // Ordered from the most specific rule to the least; the first match wins.
    const RULES: [([u8; 4], u32, AddressClass); 17] = [
        ([0, 0, 0, 0], 32, Unspecified),
        ([255, 255, 255, 255], 32, Broadcast),
        ([0, 0, 0, 0], 8, Reserved), // "this network": reaches this host on Linux
        ([10, 0, 0, 0], 8, Private),
        ([100, 64, 0, 0], 10, SharedCgnat),
        ([127, 0, 0, 0], 8, Loopback),
        ([169, 254, 0, 0], 16, LinkLocal),
        ([172, 16, 0, 0], 12, Private),
        ([192, 0, 0, 0], 24, Reserved), // IETF protocol assignments
        ([192, 0, 2, 0], 24, Documentation),
        ([192, 88, 99, 0], 24, Reserved), // deprecated 6to4 relay anycast
        ([192, 168, 0, 0], 16, Private),
        ([198, 18, 0, 0], 15, Reserved), // benchmarking
        ([198, 51, 100, 0], 24, Documentation),
        ([203, 0, 113, 0], 24, Documentation),
        ([224, 0, 0, 0], 4, Multicast),
        ([240, 0, 0, 0], 4, Reserved), // future use
    ];
    RULES
        .iter()
        .find(|(base, len, _)| in_v4(ip, *base, *len))
        .map_or(Public, |(_, _, class)| *class)
}

/// The IPv4 address an IPv6 address carries, if it is one of the forms that translate to IPv4
/// traffic: IPv4-mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96`, IPv4-compatible `::/96` (other
/// than `::` and `::1`), NAT64 `64:ff9b::/96`, and 6to4 `2002::/16`.
pub fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low32 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..5] == [0, 0, 0, 0, 0] && (s[5] == 0xffff || s[5] == 0) {
        // Mapped (::ffff:a.b.c.d) or compatible (::a.b.c.d); `::` and `::1` are IPv6's own.
        if s[5] == 0 && (ip.is_unspecified() || ip.is_loopback()) {
            return None;
        }
        return Some(low32);
    }
    if s[..4] == [0, 0, 0, 0] && s[4] == 0xffff && s[5] == 0 {
        return Some(low32); // SIIT ::ffff:0:a.b.c.d
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(low32); // NAT64 well-known prefix
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

/// Classify an IPv6 address; addresses carrying an IPv4 address are judged by the IPv4 rule.
pub fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    use AddressClass::*;
    if ip.is_unspecified() {
        return Unspecified;
    }
    if ip.is_loopback() {
        return Loopback;
    }
    if CLOUD_METADATA_V6.contains(&ip) {
        return CloudMetadata;
    }
    if let Some(v4) = embedded_ipv4(ip) {
        return classify_v4(v4);
    }
    const fn v6(a: u16, b: u16, c: u16) -> Ipv6Addr {
        Ipv6Addr::new(a, b, c, 0, 0, 0, 0, 0)
    }
    // Ordered from the most specific rule to the least; the first match wins.
    const RULES: [(Ipv6Addr, u32, AddressClass); 10] = [
        (v6(0x64, 0xff9b, 1), 48, Private), // local-use NAT64 (RFC 8215)
        (v6(0x100, 0, 0), 64, Reserved),    // discard-only
        (v6(0x2001, 0xdb8, 0), 32, Documentation),
        (v6(0x2001, 0, 0), 23, Reserved), // Teredo, benchmarking, ORCHID, ...
        (v6(0x3fff, 0, 0), 20, Documentation),
        (v6(0xfc00, 0, 0), 7, Private), // unique local
        (v6(0xfe80, 0, 0), 10, LinkLocal),
        (v6(0xfec0, 0, 0), 10, Private), // deprecated site-local
        (v6(0xff00, 0, 0), 8, Multicast),
        (v6(0x2000, 0, 0), 3, Public), // global unicast
    ];
    RULES
        .iter()
        .find(|(base, len, _)| in_v6(ip, *base, *len))
        .map_or(Reserved, |(_, _, class)| *class)
}

/// Parse one dotted part the way `inet_aton` does: `0x` hex, leading-`0` octal, else decimal.
fn parse_inet_aton_part(part: &str) -> Option<u64> {
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            if hex.is_empty() {
                return Some(0); // "0x" alone is zero (WHATWG URL parser)
            }
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.is_empty() {
        return Some(0);
    }
    if significant.len() > 11 {
        return None; // larger than any 32-bit value in any of the three bases
    }
    u64::from_str_radix(significant, radix).ok()
}

/// Parse an IPv4 address in any spelling `inet_aton` accepts: one to four dot-separated parts,
/// each decimal, octal (leading `0`) or hex (`0x`), the last part filling the remaining bytes
/// (`127.1` is `127.0.0.1`, `2130706433` is `127.0.0.1`). A single trailing dot is ignored, as
/// DNS and the URL parser ignore it.
///
/// ```
/// use std::net::Ipv4Addr;
/// use tool_std::trust::net::parse_ipv4_loose;
///
/// assert_eq!(parse_ipv4_loose("0x7f.1"), Some(Ipv4Addr::LOCALHOST));
/// assert_eq!(parse_ipv4_loose("0177.0.0.1"), Some(Ipv4Addr::LOCALHOST));
/// assert_eq!(parse_ipv4_loose("example.com"), None);
/// ```
pub fn parse_ipv4_loose(host: &str) -> Option<Ipv4Addr> {
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() {
        return None;
    }
    let mut parts = [0u64; 4];
    let mut count = 0;
    for part in host.split('.') {
        if count == 4 {
            return None;
        }
        parts[count] = parse_inet_aton_part(part)?;
        count += 1;
    }
    let (leading, last) = (&parts[..count - 1], parts[count - 1]);
    if leading.iter().any(|&p| p > 0xff) {
        return None;
    }
    let last_bits = 8 * (5 - count as u32); // 32, 24, 16 or 8 bits left for the last part
    if last >= 1u64 << last_bits {
        return None;
    }
    let mut value = last;
    for (i, &p) in leading.iter().enumerate() {
        value |= p << (24 - 8 * i);
    }
    u32::try_from(value).ok().map(Ipv4Addr::from)
}

/// Read a host as an IP address if it is one in any spelling: an IPv6 address with or without
/// brackets and zone id (`[::1]`, `fe80::1%eth0`), or an IPv4 address in any `inet_aton`
/// spelling (see [`parse_ipv4_loose`]). Returns `None` for host names.
pub fn parse_ip_host(host: &str) -> Option<IpAddr> {
    let host = host.trim();
    let unbracketed = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let without_zone = unbracketed.split('%').next().unwrap_or(unbracketed);
    if without_zone.contains(':') {
        return without_zone.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    parse_ipv4_loose(unbracketed).map(IpAddr::V4)
}

#[cfg(test)]
mod tests {
    use super::AddressClass::*;
    use super::*;

    fn class_of(s: &str) -> AddressClass {
        classify(s.parse().unwrap_or_else(|e| panic!("{s}: {e}")))
    }

    #[test]
    fn classifies_ipv4() {
        let cases = [
            ("8.8.8.8", Public),
            ("1.1.1.1", Public),
            ("93.184.216.34", Public),
            ("172.15.255.255", Public),
            ("172.32.0.0", Public),
            ("100.63.255.255", Public),
            ("100.128.0.0", Public),
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("10.0.0.1", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("192.168.1.1", Private),
            ("169.254.1.1", LinkLocal),
            ("100.64.0.1", SharedCgnat),
            ("100.127.255.255", SharedCgnat),
            ("224.0.0.1", Multicast),
            ("239.255.255.250", Multicast),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Reserved),
            ("255.255.255.255", Broadcast),
            ("240.0.0.1", Reserved),
            ("192.0.0.8", Reserved),
            ("198.18.0.1", Reserved),
            ("198.19.255.255", Reserved),
            ("192.88.99.1", Reserved),
            ("192.0.2.1", Documentation),
            ("198.51.100.7", Documentation),
            ("203.0.113.9", Documentation),
            ("169.254.169.254", CloudMetadata),
            ("169.254.170.2", CloudMetadata),
            ("100.100.100.200", CloudMetadata),
            ("168.63.129.16", CloudMetadata),
        ];
        for (ip, want) in cases {
            assert_eq!(class_of(ip), want, "{ip}");
        }
    }

    #[test]
    fn classifies_ipv6() {
        let cases = [
            ("2606:4700:4700::1111", Public),
            ("2a00:1450:4001:81b::200e", Public),
            ("::1", Loopback),
            ("::", Unspecified),
            ("fe80::1", LinkLocal),
            ("febf:ffff::1", LinkLocal),
            ("fc00::1", Private),
            ("fd12:3456:789a::1", Private),
            ("fec0::1", Private),
            ("ff02::1", Multicast),
            ("ff05::1:3", Multicast),
            ("2001:db8::1", Documentation),
            ("3fff::1", Documentation),
            ("2001::1", Reserved),
            ("2001:2::1", Reserved),
            ("100::1", Reserved),
            ("4000::1", Reserved),
            ("64:ff9b:1::a", Private),
            ("fd00:ec2::254", CloudMetadata),
            ("fd00:ec2::23", CloudMetadata),
        ];
        for (ip, want) in cases {
            assert_eq!(class_of(ip), want, "{ip}");
        }
    }

    #[test]
    fn unwraps_ipv4_inside_ipv6() {
        let cases = [
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:7f00:1", Loopback),
            ("::ffff:10.0.0.1", Private),
            ("::ffff:169.254.169.254", CloudMetadata),
            ("::ffff:8.8.8.8", Public),
            ("::ffff:0.0.0.0", Unspecified),
            ("::127.0.0.1", Loopback),
            ("::192.168.0.1", Private),
            ("::ffff:0:127.0.0.1", Loopback),
            ("64:ff9b::127.0.0.1", Loopback),
            ("64:ff9b::a9fe:a9fe", CloudMetadata),
            ("64:ff9b::8.8.8.8", Public),
            ("2002:7f00:1::", Loopback),
            ("2002:c0a8:101::1", Private),
            ("2002:808:808::1", Public),
        ];
        for (ip, want) in cases {
            assert_eq!(class_of(ip), want, "{ip}");
        }
    }

    #[test]
    fn embedded_ipv4_is_none_for_plain_ipv6() {
        for ip in ["::1", "::", "2606:4700::1", "fe80::1"] {
            let ip: Ipv6Addr = ip.parse().unwrap();
            assert_eq!(embedded_ipv4(ip), None, "{ip}");
        }
    }

    #[test]
    fn parses_inet_aton_spellings() {
        let lo = Some(Ipv4Addr::LOCALHOST);
        let cases = [
            ("127.0.0.1", lo),
            ("2130706433", lo),
            ("0x7f000001", lo),
            ("0X7F000001", lo),
            ("017700000001", lo),
            ("0177.0.0.1", lo),
            ("0177.0000.0000.0001", lo),
            ("0x7f.0.0.1", lo),
            ("0x7f.1", lo),
            ("127.1", lo),
            ("127.0.1", lo),
            ("127.0.0.1.", lo),
            ("0x7f.0x0.0x0.0x1", lo),
            ("0", Some(Ipv4Addr::UNSPECIFIED)),
            ("0x", Some(Ipv4Addr::UNSPECIFIED)),
            ("10.1", Some(Ipv4Addr::new(10, 0, 0, 1))),
            ("167772161", Some(Ipv4Addr::new(10, 0, 0, 1))),
            ("0xa9fea9fe", Some(Ipv4Addr::new(169, 254, 169, 254))),
            (
                "0251.0376.0251.0376",
                Some(Ipv4Addr::new(169, 254, 169, 254)),
            ),
            ("192.168.65535", Some(Ipv4Addr::new(192, 168, 255, 255))),
            ("4294967295", Some(Ipv4Addr::BROADCAST)),
            ("4294967296", None),
            ("256.0.0.1", None),
            ("1.2.3.256", None),
            ("192.168.65536", None),
            ("1.2.3.4.5", None),
            ("08.0.0.1", None),
            ("0x7g.0.0.1", None),
            ("1..1", None),
            ("", None),
            (".", None),
            ("example.com", None),
            ("127.0.0.1.example.com", None),
            ("+1.2.3.4", None),
            ("00000000000000000000000000000177.0.0.1", lo),
            ("99999999999999999999999999", None),
        ];
        for (host, want) in cases {
            assert_eq!(parse_ipv4_loose(host), want, "{host:?}");
        }
    }

    #[test]
    fn spellings_classify_as_what_they_stand_for() {
        let cases = [
            ("2130706433", Loopback),
            ("0177.0.0.1", Loopback),
            ("0x7f.1", Loopback),
            ("127.1", Loopback),
            ("0xa9.0xfe.0xa9.0xfe", CloudMetadata),
            ("3232235777", Private),
            ("012.0.0.1", Private),
            ("[::ffff:127.0.0.1]", Loopback),
            ("[::1]", Loopback),
            ("fe80::1%eth0", LinkLocal),
            ("[fe80::1%25eth0]", LinkLocal),
            ("0", Unspecified),
            ("134744072", Public),
        ];
        for (host, want) in cases {
            let ip = parse_ip_host(host).unwrap_or_else(|| panic!("{host} is an IP"));
            assert_eq!(classify(ip), want, "{host}");
        }
    }

    #[test]
    fn host_names_are_not_ips() {
        for host in [
            "localhost",
            "example.com",
            "1.2.3.4.nip.io",
            "xn--bcher-kva.ch",
            "::g",
        ] {
            assert_eq!(parse_ip_host(host), None, "{host}");
        }
    }

    #[test]
    fn only_public_is_public() {
        assert!(Public.is_public());
        for class in [
            Loopback,
            Private,
            LinkLocal,
            SharedCgnat,
            CloudMetadata,
            Reserved,
        ] {
            assert!(!class.is_public());
            assert!(class.to_string().starts_with("a ") || class.to_string().starts_with("the "));
        }
    }
}
