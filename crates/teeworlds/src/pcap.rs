//! UDP datagrams out of a pcap capture, for decoding recorded traffic.
//!
//! Reads classic pcap files with the `pcap-file` crate and understands the
//! link types tcpdump writes on Linux: Ethernet, loopback/null, raw IP and
//! Linux cooked capture (v1 and v2), over IPv4 and IPv6 (no IP fragments).

use pcap_file::pcap::PcapReader;
use pcap_file::DataLink;

/// One UDP datagram.
#[derive(Debug, Clone, PartialEq)]
pub struct Datagram {
    /// Capture time in seconds since the epoch.
    pub time: f64,
    /// Source address and port.
    pub src: (std::net::IpAddr, u16),
    /// Destination address and port.
    pub dst: (std::net::IpAddr, u16),
    /// UDP payload.
    pub payload: Vec<u8>,
}

/// Error reading a pcap.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PcapError {
    /// The pcap container.
    #[error("reading the pcap failed at packet {index}: {source}")]
    Pcap {
        /// Packet index.
        index: usize,
        /// What went wrong.
        source: pcap_file::PcapError,
    },
    /// A link type this reader does not handle.
    #[error("unsupported pcap link type {0:?}")]
    LinkType(DataLink),
}

/// Reads all UDP datagrams (other packets are skipped) from a classic pcap
/// or a pcapng file (told apart by the magic number).
pub fn udp_datagrams(data: &[u8]) -> Result<Vec<Datagram>, PcapError> {
    if data.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        return udp_datagrams_ng(data);
    }
    let mut r = PcapReader::new(data).map_err(|source| PcapError::Pcap { index: 0, source })?;
    let link = r.header().datalink;
    let mut out = Vec::new();
    let mut index = 0;
    while let Some(pkt) = r.next_packet() {
        let pkt = pkt.map_err(|source| PcapError::Pcap { index, source })?;
        index += 1;
        if let Some(d) = datagram_from_frame(link, &pkt.data, pkt.timestamp.as_secs_f64())? {
            out.push(d);
        }
    }
    Ok(out)
}

fn udp_datagrams_ng(data: &[u8]) -> Result<Vec<Datagram>, PcapError> {
    use pcap_file::pcapng::{Block, PcapNgReader};
    let mut r = PcapNgReader::new(data).map_err(|source| PcapError::Pcap { index: 0, source })?;
    let mut links: Vec<DataLink> = Vec::new();
    let mut out = Vec::new();
    let mut index = 0;
    while let Some(block) = r.next_block() {
        let block = block.map_err(|source| PcapError::Pcap { index, source })?;
        index += 1;
        match block {
            Block::SectionHeader(_) => links.clear(),
            Block::InterfaceDescription(i) => links.push(i.linktype),
            Block::EnhancedPacket(p) => {
                let link = links
                    .get(p.interface_id as usize)
                    .copied()
                    .unwrap_or(DataLink::ETHERNET);
                if let Some(d) = datagram_from_frame(link, &p.data, p.timestamp.as_secs_f64())? {
                    out.push(d);
                }
            }
            Block::SimplePacket(p) => {
                let link = links.first().copied().unwrap_or(DataLink::ETHERNET);
                if let Some(d) = datagram_from_frame(link, &p.data, 0.0)? {
                    out.push(d);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn datagram_from_frame(
    link: DataLink,
    frame: &[u8],
    time: f64,
) -> Result<Option<Datagram>, PcapError> {
    let ip = match link {
        DataLink::ETHERNET => ethernet_payload(frame),
        DataLink::NULL | DataLink::LOOP => frame.get(4..),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => Some(frame),
        DataLink::LINUX_SLL => frame.get(16..),
        DataLink::LINUX_SLL2 => frame.get(20..),
        other => return Err(PcapError::LinkType(other)),
    };
    Ok(ip.and_then(|ip| udp_from_ip(ip, time)))
}

fn ethernet_payload(f: &[u8]) -> Option<&[u8]> {
    let mut ethertype = u16::from_be_bytes([*f.get(12)?, *f.get(13)?]);
    let mut off = 14;
    while ethertype == 0x8100 || ethertype == 0x88a8 {
        ethertype = u16::from_be_bytes([*f.get(off + 2)?, *f.get(off + 3)?]);
        off += 4;
    }
    f.get(off..)
}

fn udp_from_ip(ip: &[u8], time: f64) -> Option<Datagram> {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    let version = ip.first()? >> 4;
    let (src, dst, udp) = match version {
        4 => {
            let ihl = usize::from(ip.first()? & 0x0f) * 4;
            if *ip.get(9)? != 17 {
                return None;
            }
            let frag = u16::from_be_bytes([*ip.get(6)?, *ip.get(7)?]);
            if frag & 0x3fff != 0 {
                return None; // fragments are not reassembled
            }
            let total = usize::from(u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]));
            let s: [u8; 4] = ip.get(12..16)?.try_into().ok()?;
            let d: [u8; 4] = ip.get(16..20)?.try_into().ok()?;
            (
                IpAddr::V4(Ipv4Addr::from(s)),
                IpAddr::V4(Ipv4Addr::from(d)),
                ip.get(ihl..total.min(ip.len()))?,
            )
        }
        6 => {
            if *ip.get(6)? != 17 {
                return None;
            }
            let s: [u8; 16] = ip.get(8..24)?.try_into().ok()?;
            let d: [u8; 16] = ip.get(24..40)?.try_into().ok()?;
            (
                IpAddr::V6(Ipv6Addr::from(s)),
                IpAddr::V6(Ipv6Addr::from(d)),
                ip.get(40..)?,
            )
        }
        _ => return None,
    };
    let sport = u16::from_be_bytes([*udp.first()?, *udp.get(1)?]);
    let dport = u16::from_be_bytes([*udp.get(2)?, *udp.get(3)?]);
    let len = usize::from(u16::from_be_bytes([*udp.get(4)?, *udp.get(5)?]));
    let payload = udp.get(8..len.max(8).min(udp.len()))?.to_vec();
    Some(Datagram {
        time,
        src: (src, sport),
        dst: (dst, dport),
        payload,
    })
}

/// A client/server flow with its datagrams in capture order.
#[derive(Debug, Clone)]
pub struct Flow {
    /// The client's address.
    pub client: (std::net::IpAddr, u16),
    /// The server's address.
    pub server: (std::net::IpAddr, u16),
    /// (time, direction, payload).
    pub datagrams: Vec<(f64, crate::decoder::Direction, Vec<u8>)>,
}

/// Who sent a datagram, judging by what only one side sends: token requests
/// (padded), connects and `gie3` come from clients; token answers
/// (unpadded), accepts and `inf3` from servers.
fn sender_is_client(payload: &[u8]) -> Option<bool> {
    use crate::packet::{ControlMessage, Packet};
    match Packet::decode(payload).ok()?.packet {
        Packet::Control { message, .. } => match message {
            ControlMessage::Token { padding, .. } => Some(padding > 0),
            ControlMessage::Connect { .. } => Some(true),
            ControlMessage::Accept { .. } => Some(false),
            _ => None,
        },
        Packet::Connless(c) => {
            let id = c.payload.get(..8)?;
            if id == crate::connless::GETINFO {
                Some(true)
            } else if id == crate::connless::INFO {
                Some(false)
            } else {
                None
            }
        }
        Packet::Chunks { .. } => None,
    }
}

/// Groups datagrams into flows. The client of a flow is told by the first
/// datagram only a client or only a server sends (see `sender_is_client`);
/// without one, the side that sent the first datagram.
pub fn flows(datagrams: Vec<Datagram>) -> Vec<Flow> {
    let mut out = group(datagrams);
    for f in &mut out {
        let decisive = f
            .datagrams
            .iter()
            .find_map(|(_, dir, p)| sender_is_client(p).map(|c| (*dir, c)));
        if let Some((dir, is_client)) = decisive {
            let labelled_client = dir == crate::decoder::Direction::ClientToServer;
            if labelled_client != is_client {
                std::mem::swap(&mut f.client, &mut f.server);
                for (_, d, _) in &mut f.datagrams {
                    *d = match d {
                        crate::decoder::Direction::ClientToServer => {
                            crate::decoder::Direction::ServerToClient
                        }
                        crate::decoder::Direction::ServerToClient => {
                            crate::decoder::Direction::ClientToServer
                        }
                    };
                }
            }
        }
    }
    out
}

fn group(datagrams: Vec<Datagram>) -> Vec<Flow> {
    use crate::decoder::Direction;
    let mut out: Vec<Flow> = Vec::new();
    for d in datagrams {
        let found = out.iter_mut().find(|f| {
            (f.client == d.src && f.server == d.dst) || (f.client == d.dst && f.server == d.src)
        });
        match found {
            Some(f) => {
                let dir = if f.client == d.src {
                    Direction::ClientToServer
                } else {
                    Direction::ServerToClient
                };
                f.datagrams.push((d.time, dir, d.payload));
            }
            None => out.push(Flow {
                client: d.src,
                server: d.dst,
                datagrams: vec![(d.time, Direction::ClientToServer, d.payload)],
            }),
        }
    }
    out
}
