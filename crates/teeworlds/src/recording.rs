//! A whole recording read in one pass, with its summary counted along: a
//! pcap capture ([`CaptureReader`]) or a demo ([`DemoRecords`]).
//!
//! Both take the file's bytes (they open no files) and hand out what they
//! find one step at a time, so a caller can print, tabulate or drop each
//! step before the next is decoded:
//!
//! - [`CaptureReader`]: the UDP datagrams of a capture ([`crate::pcap`]),
//!   grouped into client/server flows, each decoded by a [`Decoder`] of its
//!   own (snapshot deltas applied, CRCs checked), as [`CapturedDatagram`]s.
//!   [`PcapSummary`] counts flows, datagrams, datagrams with errors,
//!   snapshots and matching CRCs.
//! - [`DemoRecords`]: a demo's chunks ([`crate::demo::DemoReader`]) with its
//!   messages decoded, as [`DemoRecord`]s; the snapshot of a
//!   [`DemoRecord::Snapshot`] is [`DemoRecords::snapshot`]. [`DemoSummary`]
//!   counts ticks, snapshots (full ones apart) and messages (those that did
//!   not decode apart). A demo that ends inside a chunk stops the records;
//!   the error is then [`DemoRecords::failure`], and everything before it
//!   has been handed out.
//!
//! ```
//! use gamewire_teeworlds::demo::DemoWriter;
//! use gamewire_teeworlds::recording::{DemoRecords, DemoSummary};
//! use gamewire_teeworlds::snapshot::Snapshot;
//! let mut w = DemoWriter::new("dm1", 0, b"map", "server");
//! let mut snap = Snapshot::new();
//! snap.insert(11, 0, vec![0, 5, 30]).unwrap();
//! w.snapshot(100, &snap);
//! let file = w.finish();
//! let summary = DemoSummary::of(&file).unwrap();
//! assert_eq!((summary.ticks, summary.snapshots, summary.last_tick), (1, 1, 100));
//! let mut records = DemoRecords::new(&file).unwrap();
//! while let Some(_) = records.next() {}
//! assert_eq!(records.summary(), &summary);
//! ```

use std::net::IpAddr;

use serde::Serialize;

use crate::decoder::{Decoder, Direction, Event, Report};
use crate::demo::{decode_message, DemoEvent, DemoFileError, DemoHeader, DemoReader};
use crate::msg::{Message, MessageError};
use crate::pcap::{Flow, PcapError};
use crate::snapshot::Snapshot;

/// What a capture held, as `gamewire tw pcap` sums it up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PcapSummary {
    /// Client/server flows.
    pub flows: usize,
    /// Datagrams decoded.
    pub datagrams: u64,
    /// Datagrams with at least one error.
    pub datagrams_with_errors: u64,
    /// Snapshots completed (all their parts arrived), whether or not they
    /// applied.
    pub snapshots: u64,
    /// Snapshots whose CRC matched.
    pub snapshot_crc_ok: u64,
}

impl PcapSummary {
    /// Counts one datagram's report.
    pub fn add(&mut self, r: &Report) {
        self.datagrams += 1;
        self.datagrams_with_errors += u64::from(!r.errors.is_empty());
        for e in &r.events {
            if let Event::Snapshot { crc_ok, .. } = e {
                self.snapshots += 1;
                self.snapshot_crc_ok += u64::from(*crc_ok);
            }
        }
        self.snapshots += r
            .errors
            .iter()
            .filter(|e| matches!(e, crate::decoder::DecodeError::Snapshot { .. }))
            .count() as u64;
    }

    /// The summary of a whole capture.
    pub fn of(data: &[u8]) -> Result<PcapSummary, PcapError> {
        let mut reader = CaptureReader::new(data)?;
        for _ in reader.by_ref() {}
        Ok(*reader.summary())
    }
}

/// One datagram of a capture, decoded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapturedDatagram {
    /// The flow's index, in the order flows first appear.
    pub flow: usize,
    /// The flow's client address.
    pub client: (IpAddr, u16),
    /// The flow's server address.
    pub server: (IpAddr, u16),
    /// Capture time in seconds since the epoch.
    pub time: f64,
    /// What the datagram held.
    pub report: Report,
}

/// The datagrams of a capture, flow by flow, each decoded with its flow's
/// [`Decoder`].
#[derive(Debug)]
pub struct CaptureReader {
    flows: Vec<Flow>,
    flow: usize,
    datagram: usize,
    decoder: Decoder,
    summary: PcapSummary,
}

impl CaptureReader {
    /// Reads the capture's UDP datagrams (a classic pcap or a pcapng file)
    /// and groups them into flows; decoding happens as the reader is
    /// iterated.
    pub fn new(data: &[u8]) -> Result<CaptureReader, PcapError> {
        let flows = crate::pcap::flows(crate::pcap::udp_datagrams(data)?);
        let summary = PcapSummary {
            flows: flows.len(),
            ..PcapSummary::default()
        };
        Ok(CaptureReader {
            flows,
            flow: 0,
            datagram: 0,
            decoder: Decoder::new(),
            summary,
        })
    }

    /// The flows, with their datagrams still undecoded.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    /// What has been decoded so far (everything, once the reader is done).
    pub fn summary(&self) -> &PcapSummary {
        &self.summary
    }
}

impl Iterator for CaptureReader {
    type Item = CapturedDatagram;

    fn next(&mut self) -> Option<CapturedDatagram> {
        loop {
            let flow = self.flows.get(self.flow)?;
            let Some((time, direction, payload)) = flow.datagrams.get(self.datagram) else {
                self.flow += 1;
                self.datagram = 0;
                self.decoder = Decoder::new();
                continue;
            };
            self.datagram += 1;
            let report = self.decoder.decode(*direction, payload);
            self.summary.add(&report);
            return Some(CapturedDatagram {
                flow: self.flow,
                client: flow.client,
                server: flow.server,
                time: *time,
                report,
            });
        }
    }
}

/// What a demo held, as `gamewire tw demo` sums it up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DemoSummary {
    /// Tick markers.
    pub ticks: u64,
    /// The last tick (-1 before the first tick marker).
    pub last_tick: i32,
    /// Snapshots (full or deltas).
    pub snapshots: u64,
    /// Full snapshots (keyframes).
    pub full_snapshots: u64,
    /// Recorded messages.
    pub messages: u64,
    /// Messages that did not decode.
    pub messages_not_decoded: u64,
}

impl DemoSummary {
    /// The summary of a whole demo: everything before a cut, when the file
    /// ends inside a chunk; other errors fail.
    pub fn of(data: &[u8]) -> Result<DemoSummary, DemoFileError> {
        let mut records = DemoRecords::new(data)?;
        for _ in records.by_ref() {}
        match records.failure() {
            Some(e) if !e.is_truncation() => Err(e.clone()),
            _ => Ok(*records.summary()),
        }
    }
}

/// One step through a demo, its message decoded.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum DemoRecord {
    /// A new tick begins.
    Tick {
        /// The tick.
        tick: i32,
        /// A full snapshot follows.
        keyframe: bool,
    },
    /// The snapshot of the tick is known: [`DemoRecords::snapshot`].
    Snapshot {
        /// The tick.
        tick: i32,
        /// Read whole (a keyframe), not as a delta.
        full: bool,
    },
    /// A recorded message.
    Message {
        /// The tick (-1 before the first tick marker).
        tick: i32,
        /// The message's bytes as recorded.
        data: Vec<u8>,
        /// The message, or why it did not decode.
        message: Result<Message, MessageError>,
    },
}

/// The records of a demo with its summary; stops at the first error
/// ([`DemoRecords::failure`]).
#[derive(Debug)]
pub struct DemoRecords<'a> {
    reader: DemoReader<'a>,
    summary: DemoSummary,
    failure: Option<DemoFileError>,
}

impl<'a> DemoRecords<'a> {
    /// Reads the header and the map; the chunks are read by iterating.
    pub fn new(data: &'a [u8]) -> Result<DemoRecords<'a>, DemoFileError> {
        Ok(DemoRecords {
            reader: DemoReader::new(data)?,
            summary: DemoSummary {
                last_tick: -1,
                ..DemoSummary::default()
            },
            failure: None,
        })
    }

    /// The header.
    pub fn header(&self) -> &DemoHeader {
        self.reader.header()
    }

    /// The snapshot of the latest [`DemoRecord::Snapshot`].
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.reader.snapshot()
    }

    /// What has been read so far (everything, once the records are done).
    pub fn summary(&self) -> &DemoSummary {
        &self.summary
    }

    /// The error that stopped the records, if one did: a cut
    /// ([`DemoFileError::is_truncation`]) or a chunk that did not decode.
    pub fn failure(&self) -> Option<&DemoFileError> {
        self.failure.as_ref()
    }
}

impl Iterator for DemoRecords<'_> {
    type Item = DemoRecord;

    fn next(&mut self) -> Option<DemoRecord> {
        let event = match self.reader.next()? {
            Ok(e) => e,
            Err(e) => {
                self.failure = Some(e);
                return None;
            }
        };
        self.summary.last_tick = self.reader.tick();
        Some(match event {
            DemoEvent::Tick { tick, keyframe } => {
                self.summary.ticks += 1;
                DemoRecord::Tick { tick, keyframe }
            }
            DemoEvent::Snapshot { tick, full } => {
                self.summary.snapshots += 1;
                self.summary.full_snapshots += u64::from(full);
                DemoRecord::Snapshot { tick, full }
            }
            DemoEvent::Message { tick, data } => {
                let message = decode_message(&data);
                self.summary.messages += 1;
                self.summary.messages_not_decoded += u64::from(message.is_err());
                DemoRecord::Message {
                    tick,
                    data,
                    message,
                }
            }
        })
    }
}

/// Which way a datagram went, as the tables write it: `c2s` or `s2c`.
pub fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::ClientToServer => "c2s",
        Direction::ServerToClient => "s2c",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::demo::DemoWriter;

    fn demo_with_a_cut() -> (Vec<u8>, usize) {
        let mut w = DemoWriter::new("dm1", 0, b"map", "server");
        let mut snap = Snapshot::new();
        snap.insert(11, 0, vec![0, 5, 30]).unwrap();
        w.snapshot(100, &snap);
        snap.insert(11, 1, vec![0, 2, 40]).unwrap();
        w.snapshot(102, &snap);
        let file = w.finish();
        let whole = file.len();
        (file, whole)
    }

    #[test]
    fn a_demo_summary_counts_ticks_snapshots_and_stops_at_a_cut() {
        let (file, len) = demo_with_a_cut();
        let s = DemoSummary::of(&file).unwrap();
        assert_eq!(
            (s.ticks, s.last_tick, s.snapshots, s.full_snapshots),
            (2, 102, 2, 1)
        );
        // Cut inside the last chunk: the first tick is still counted, and
        // the cut is the failure, not an error of the summary.
        let cut = &file[..len - 2];
        let s = DemoSummary::of(cut).unwrap();
        assert_eq!(s.snapshots, 1);
        let mut records = DemoRecords::new(cut).unwrap();
        for _ in records.by_ref() {}
        assert!(records.failure().is_some_and(DemoFileError::is_truncation));
    }

    #[test]
    fn garbage_is_not_a_capture() {
        assert!(CaptureReader::new(b"not a pcap at all").is_err());
        assert!(PcapSummary::of(&[]).is_err());
    }
}
