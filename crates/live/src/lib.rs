//! Live Source 2 HTTP broadcasts (CSTV+, used by CS2, Deadlock and Dota 2
//! relays), read over the network as they are played.
//!
//! ## What a relay serves
//!
//! A broadcast is a base URL under which the relay serves numbered
//! fragments (layout as read by demofile-net's `HttpBroadcastReader` and
//! demoinfocs-golang's `cstv` reader):
//!
//! | request | answer |
//! |---|---|
//! | `GET {url}/sync` | JSON: `fragment` (the newest keyframe to start at), `signup_fragment`, `tick`, `tps`, `keyframe_interval` (seconds per fragment), `map`, `protocol` (5), optionally `token_redirect` (a path under which the fragments are) |
//! | `GET {url}/{signup_fragment}/start` | the signon: send tables, class info, string tables |
//! | `GET {url}/{n}/full` | the keyframe of fragment `n`: spawn groups and a full entity snapshot |
//! | `GET {url}/{n}/delta` | the packets of fragment `n` after its keyframe |
//!
//! Playback is `start`, the `full` of the first fragment, then the `delta`
//! of that fragment and of every one after it. A fragment that does not
//! exist yet is `404 Not Found`; a relay produces one fragment every
//! `keyframe_interval` seconds. Each fragment is a run of records
//! (`gamewire_source2::broadcast` describes them); a `DEM_Stop` record
//! ends the broadcast.
//!
//! ## The reader
//!
//! [`BroadcastReader`] implements [`std::io::Read`]: it fetches the sync
//! and the signon when opened, then the first keyframe and each delta in
//! turn, converts each fragment to `.dem` frames as it arrives
//! ([`gamewire_source2::broadcast::Converter`]) and hands out those bytes.
//! A read blocks until the next fragment is there. It holds one fragment
//! at a time: memory stays flat however long the match.
//!
//! - **Pace.** A fragment that is not there yet (404) is asked for again
//!   after a quarter of a fragment's duration (`keyframe_interval / 4`,
//!   at least 100 ms; [`LiveOptions::poll`] overrides it). Fragments
//!   already there (a reader that starts behind) are fetched back to back.
//! - **End.** A `DEM_Stop` record ends the stream; so does
//!   [`LiveOptions::idle_timeout`] without a new fragment (the relay
//!   stopped producing). Either way the stream ends with a `DEM_Stop`
//!   frame at the last tick, as a broadcast folder read from disk does.
//! - **Faults.** A `5xx` answer, a time-out ([`LiveOptions::request_timeout`]
//!   per request, body included), a refused or reset connection and a body
//!   shorter than its `Content-Length` are retried
//!   ([`LiveOptions::retries`] times, waiting [`LiveOptions::backoff`],
//!   doubled after each failure up to [`MAX_BACKOFF`]). When the retries
//!   run out, the read fails with a [`LiveError`] naming the URL, the
//!   fragment and the last tick converted; every byte handed out before
//!   stays valid (the demo up to there parses, as a cut file does).
//! - **Limits.** A fragment's body may be at most
//!   [`LiveOptions::max_fragment_bytes`] (a larger `Content-Length` is
//!   refused before reading, an endless body stops one byte past it), the
//!   broadcast at most [`LiveOptions::max_total_bytes`], the sync JSON at
//!   most [`MAX_SYNC_BYTES`], and its numbers must be in range
//!   ([`Sync::parse`]). These are not retried: a server that breaks them
//!   is hostile or broken, and the error says which limit.

use std::io::Read;
use std::time::{Duration, Instant};

use gamewire_source2::broadcast::{Converter, Pushed};
use gamewire_source2::DemoError;

/// The largest sync JSON read (real ones are about 200 bytes).
pub const MAX_SYNC_BYTES: u64 = 64 << 10;

/// The largest fragment number accepted in a sync: 2^24 fragments of 3
/// seconds are 1.6 years of broadcast.
pub const MAX_FRAGMENT: u64 = 1 << 24;

/// The largest tick rate accepted in a sync.
pub const MAX_TPS: u64 = 1024;

/// The longest fragment accepted in a sync (`keyframe_interval`, seconds).
pub const MAX_KEYFRAME_INTERVAL: f64 = 300.0;

/// The broadcast protocol read (every CS2 and Deadlock relay serves 5).
pub const PROTOCOL: u64 = 5;

/// The longest wait between two retries of a failed request.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How a broadcast is read: time-outs, retries and limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveOptions {
    /// How long without a new fragment ends the broadcast (default 30 s,
    /// ten fragments of a 3-second relay).
    pub idle_timeout: Duration,
    /// How many times a failed request (5xx, time-out, connection refused
    /// or reset, body cut short) is retried before the read fails
    /// (default 5).
    pub retries: u32,
    /// The wait before the first retry, doubled after each (default
    /// 500 ms; five retries span 15.5 s, a relay's restart).
    pub backoff: Duration,
    /// The longest a request may take, its body included (default 20 s).
    pub request_timeout: Duration,
    /// The wait before asking again for a fragment that is not there yet;
    /// `None` (the default): a quarter of the broadcast's
    /// `keyframe_interval`, at least 100 ms.
    pub poll: Option<Duration>,
    /// The largest fragment body accepted (default 64 MiB; a keyframe of a
    /// full Deadlock match is under 2 MiB).
    pub max_fragment_bytes: u64,
    /// The most fragment bytes read from one broadcast (default 16 GiB).
    pub max_total_bytes: u64,
}

impl Default for LiveOptions {
    fn default() -> LiveOptions {
        LiveOptions {
            idle_timeout: Duration::from_secs(30),
            retries: 5,
            backoff: Duration::from_millis(500),
            request_timeout: Duration::from_secs(20),
            poll: None,
            max_fragment_bytes: 64 << 20,
            max_total_bytes: 16 << 30,
        }
    }
}

/// Whether `input` names an HTTP broadcast (`http://` or `https://`).
pub fn is_url(input: &str) -> bool {
    let lower = |n: usize| input.get(..n).map(str::to_ascii_lowercase);
    lower(7).as_deref() == Some("http://") || lower(8).as_deref() == Some("https://")
}

/// Why a live broadcast could not be read (further): the request's URL,
/// the fragment (`35/delta`; `None` for the sync) and the last tick
/// converted before it, with what went wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{url}: {kind} (fragment {}, last tick {last_tick})", fragment.as_deref().unwrap_or("sync"))]
pub struct LiveError {
    /// The URL of the request that failed (the broadcast's URL when no
    /// request was made).
    pub url: String,
    /// The fragment (`0/start`, `35/full`, `36/delta`), `None` for the
    /// sync.
    pub fragment: Option<String>,
    /// The tick of the last record converted (-1 before the first).
    pub last_tick: i32,
    /// What went wrong.
    pub kind: LiveErrorKind,
}

/// What went wrong with a request or a fragment.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LiveErrorKind {
    /// Not an `http://` or `https://` URL.
    #[error("not an http:// or https:// URL")]
    NotAUrl,
    /// The server answered with this status (after the retries, for a
    /// 5xx).
    #[error("HTTP status {status}{}", retried(*.attempts))]
    Status {
        /// The status.
        status: u16,
        /// Requests made.
        attempts: u32,
    },
    /// The connection failed, timed out or was cut (after the retries).
    #[error("{reason}{}", retried(*.attempts))]
    Transport {
        /// The client's message.
        reason: String,
        /// Requests made.
        attempts: u32,
    },
    /// No such fragment (404) for [`LiveOptions::idle_timeout`], where one
    /// must be (the sync, the signon, the first keyframe).
    #[error("not found for {} ms (the idle time-out)", .waited.as_millis())]
    NotFound {
        /// How long it was asked for.
        waited: Duration,
    },
    /// A `Content-Length` above [`LiveOptions::max_fragment_bytes`] (or
    /// [`MAX_SYNC_BYTES`] for the sync).
    #[error("Content-Length {length} is above the limit of {limit} bytes")]
    ContentLength {
        /// The announced length.
        length: u64,
        /// The limit.
        limit: u64,
    },
    /// A body longer than the limit (an endless body stops one byte past
    /// it).
    #[error("the body is longer than the limit of {limit} bytes")]
    BodyTooLarge {
        /// The limit.
        limit: u64,
    },
    /// The broadcast's fragments went past
    /// [`LiveOptions::max_total_bytes`].
    #[error("the broadcast's fragments are {total} bytes, above the limit of {limit}")]
    TotalTooLarge {
        /// Bytes of fragments read with this one.
        total: u64,
        /// The limit.
        limit: u64,
    },
    /// The sync JSON is not JSON, or a number in it is out of range.
    #[error("sync: {0}")]
    Sync(String),
    /// A fragment's records are damaged (a record cut short inside a
    /// complete body).
    #[error("{0}")]
    Fragment(Box<DemoError>),
}

fn retried(attempts: u32) -> String {
    if attempts > 1 {
        format!(" ({attempts} attempts)")
    } else {
        String::new()
    }
}

impl LiveErrorKind {
    /// Whether a request failing so is worth retrying: the server may
    /// answer next time.
    fn is_retryable(&self) -> bool {
        match self {
            LiveErrorKind::Status { status, .. } => *status >= 500,
            LiveErrorKind::Transport { .. } => true,
            _ => false,
        }
    }

    fn with_attempts(self, n: u32) -> LiveErrorKind {
        match self {
            LiveErrorKind::Status { status, .. } => LiveErrorKind::Status {
                status,
                attempts: n,
            },
            LiveErrorKind::Transport { reason, .. } => LiveErrorKind::Transport {
                reason,
                attempts: n,
            },
            other => other,
        }
    }
}

/// What a broadcast's `/sync` says, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Sync {
    /// The fragment to start at (its keyframe is there).
    pub fragment: u64,
    /// The fragment whose `start` is the signon.
    pub signup_fragment: u64,
    /// The tick at `fragment`, if given.
    pub tick: Option<u64>,
    /// Ticks per second, if given.
    pub tps: Option<u64>,
    /// Seconds per fragment (3 when not given).
    pub keyframe_interval: f64,
    /// The map, if given.
    pub map: Option<String>,
    /// A path under the broadcast's URL where the fragments are, if given.
    pub token_redirect: Option<String>,
}

impl Sync {
    /// Reads a sync JSON, checking every number against a sane range:
    /// `fragment` at most [`MAX_FRAGMENT`] and not below
    /// `signup_fragment`, `tps` 1 to [`MAX_TPS`], `keyframe_interval` above
    /// 0 and at most [`MAX_KEYFRAME_INTERVAL`] seconds, `tick` a 32-bit tick, `protocol`
    /// [`PROTOCOL`] when given, `token_redirect` a relative path of
    /// letters, digits, `_`, `-`, `.` and `/` (no `..`).
    pub fn parse(text: &[u8]) -> Result<Sync, String> {
        let value: serde_json::Value =
            serde_json::from_slice(text).map_err(|e| format!("not JSON: {e}"))?;
        let Some(object) = value.as_object() else {
            return Err("not a JSON object".into());
        };
        let number = |key: &str, max: u64| -> Result<Option<u64>, String> {
            match object.get(key) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(v) => match v.as_u64() {
                    Some(n) if n <= max => Ok(Some(n)),
                    _ => Err(format!("{key} is {v}, not a whole number from 0 to {max}")),
                },
            }
        };
        let fragment =
            number("fragment", MAX_FRAGMENT)?.ok_or_else(|| "no fragment".to_string())?;
        let signup_fragment = number("signup_fragment", MAX_FRAGMENT)?.unwrap_or(0);
        if signup_fragment > fragment {
            return Err(format!(
                "signup_fragment {signup_fragment} is after fragment {fragment}"
            ));
        }
        let tps = number("tps", MAX_TPS)?;
        if tps == Some(0) {
            return Err("tps is 0".into());
        }
        let keyframe_interval = match object.get("keyframe_interval") {
            None | Some(serde_json::Value::Null) => 3.0,
            Some(v) => match v.as_f64() {
                Some(s) if s > 0.0 && s <= MAX_KEYFRAME_INTERVAL => s,
                _ => {
                    return Err(format!(
                        "keyframe_interval is {v}, not a number of seconds above 0 and at most {MAX_KEYFRAME_INTERVAL}"
                    ))
                }
            },
        };
        if let Some(p) = number("protocol", u64::from(u32::MAX))? {
            if p != PROTOCOL {
                return Err(format!("protocol {p}, not {PROTOCOL}"));
            }
        }
        let tick = number("tick", i32::MAX as u64)?;
        let text_field = |key: &str| object.get(key).and_then(|v| v.as_str()).map(str::to_string);
        let token_redirect = text_field("token_redirect").filter(|t| !t.is_empty());
        if let Some(t) = &token_redirect {
            let ok = t.len() <= 256
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-./".contains(&b))
                && !t.split('/').any(|part| part == "..");
            if !ok {
                return Err(format!("token_redirect {t:?} is not a relative path"));
            }
        }
        Ok(Sync {
            fragment,
            signup_fragment,
            tick,
            tps,
            keyframe_interval,
            map: text_field("map"),
            token_redirect,
        })
    }
}

/// What comes next in a broadcast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// The keyframe of this fragment.
    Full(u64),
    /// The delta of this fragment.
    Delta(u64),
    /// Nothing: the stream has ended (or failed).
    Done,
}

/// A live HTTP broadcast read as a `.dem` byte stream ([`std::io::Read`]);
/// see the crate's documentation for the requests, the pace, the faults
/// handled and the limits.
pub struct BroadcastReader {
    agent: Agent,
    /// The broadcast's URL as given (no trailing `/`).
    url: String,
    /// Where the fragments are: `url`, or `url/token_redirect`.
    base: String,
    options: LiveOptions,
    sync: Sync,
    converter: Converter,
    /// Converted bytes not yet handed out (from `pos`).
    out: Vec<u8>,
    pos: usize,
    next: Next,
    /// Fragment bytes read so far.
    total: u64,
    /// Fragments read so far (the signon included).
    fragments: u64,
    /// When the last fragment arrived.
    last_new: Instant,
    /// The error that ended the stream, kept after it was returned.
    error: Option<LiveError>,
    /// The error was returned by a read.
    error_told: bool,
}

impl std::fmt::Debug for BroadcastReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BroadcastReader")
            .field("url", &self.url)
            .field("sync", &self.sync)
            .field("next", &self.next)
            .field("total", &self.total)
            .field("last_tick", &self.converter.last_tick())
            .finish_non_exhaustive()
    }
}

/// The HTTP client: ureq's agent (connections kept alive between
/// fragments), none in the WebAssembly build.
#[cfg(not(target_arch = "wasm32"))]
type Agent = ureq::Agent;

/// The WebAssembly build has no HTTP client.
#[cfg(target_arch = "wasm32")]
#[derive(Debug, Clone, Copy)]
struct Agent;

/// The client for `options`: statuses as values, the request time-out, a
/// few redirects.
#[cfg(not(target_arch = "wasm32"))]
fn new_agent(options: &LiveOptions) -> Agent {
    ureq::Agent::new_with_config(
        ureq::config::Config::builder()
            .http_status_as_error(false)
            .timeout_global(Some(options.request_timeout))
            .max_redirects(5)
            .user_agent(concat!("gamewire/", env!("CARGO_PKG_VERSION")))
            .build(),
    )
}

#[cfg(target_arch = "wasm32")]
fn new_agent(_options: &LiveOptions) -> Agent {
    Agent
}

/// One request's outcome.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
enum Got {
    Body(Vec<u8>),
    NotFound,
}

impl BroadcastReader {
    /// Opens the broadcast at `url`: fetches its sync and signon (waiting
    /// for them up to the idle time-out, retrying failures), so an error
    /// here means nothing of the broadcast could be read.
    pub fn open(url: &str, options: LiveOptions) -> Result<BroadcastReader, LiveError> {
        let url = url.trim_end_matches('/').to_string();
        let agent = new_agent(&options);
        let mut reader = BroadcastReader {
            agent,
            base: url.clone(),
            url,
            options,
            sync: Sync {
                fragment: 0,
                signup_fragment: 0,
                tick: None,
                tps: None,
                keyframe_interval: 3.0,
                map: None,
                token_redirect: None,
            },
            converter: Converter::new(),
            out: Vec::new(),
            pos: 0,
            next: Next::Done,
            total: 0,
            fragments: 0,
            last_new: Instant::now(),
            error: None,
            error_told: false,
        };
        if !is_url(&reader.url) {
            return Err(reader.error_at(reader.url.clone(), None, LiveErrorKind::NotAUrl));
        }
        let sync_url = format!("{}/sync", reader.url);
        let text = reader.fetch_waiting(&sync_url, None, MAX_SYNC_BYTES)?;
        reader.sync = Sync::parse(&text)
            .map_err(|e| reader.error_at(sync_url.clone(), None, LiveErrorKind::Sync(e)))?;
        if let Some(t) = &reader.sync.token_redirect {
            reader.base = format!("{}/{}", reader.url, t.trim_matches('/'));
        }
        reader.converter.header(&mut reader.out);
        let name = format!("{}/start", reader.sync.signup_fragment);
        let start_url = format!("{}/{name}", reader.base);
        let limit = reader.options.max_fragment_bytes;
        let data = reader.fetch_waiting(&start_url, Some(&name), limit)?;
        reader.convert(&start_url, &name, &data)?;
        reader.next = Next::Full(reader.sync.fragment);
        Ok(reader)
    }

    /// What the broadcast's sync said.
    pub fn sync(&self) -> &Sync {
        &self.sync
    }

    /// The tick of the last record converted (-1 before the first).
    pub fn last_tick(&self) -> i32 {
        self.converter.last_tick()
    }

    /// Fragment bytes read so far.
    pub fn bytes_fetched(&self) -> u64 {
        self.total
    }

    /// Fragments read so far (the signon included).
    pub fn fragments_read(&self) -> u64 {
        self.fragments
    }

    /// The error that ended the stream, if one did.
    pub fn error(&self) -> Option<&LiveError> {
        self.error.as_ref()
    }

    /// The broadcast's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn error_at(&self, url: String, fragment: Option<&str>, kind: LiveErrorKind) -> LiveError {
        LiveError {
            url,
            fragment: fragment.map(str::to_string),
            last_tick: self.converter.last_tick(),
            kind,
        }
    }

    /// The wait before asking again for a fragment not there yet.
    fn poll_interval(&self) -> Duration {
        self.options.poll.unwrap_or_else(|| {
            Duration::from_secs_f64(self.sync.keyframe_interval / 4.0)
                .max(Duration::from_millis(100))
        })
    }

    /// One GET: the body, or `NotFound` for a 404.
    #[cfg(not(target_arch = "wasm32"))]
    fn get_once(&self, url: &str, limit: u64) -> Result<Got, LiveErrorKind> {
        let transport = |e: ureq::Error| match e {
            ureq::Error::BodyExceedsLimit(_) => LiveErrorKind::BodyTooLarge { limit },
            e => LiveErrorKind::Transport {
                reason: e.to_string(),
                attempts: 1,
            },
        };
        let mut response = self.agent.get(url).call().map_err(transport)?;
        let status = response.status().as_u16();
        if status == 404 {
            return Ok(Got::NotFound);
        }
        if status != 200 {
            return Err(LiveErrorKind::Status {
                status,
                attempts: 1,
            });
        }
        if let Some(length) = response.body().content_length() {
            if length > limit {
                return Err(LiveErrorKind::ContentLength { length, limit });
            }
        }
        let body = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(transport)?;
        Ok(Got::Body(body))
    }

    /// In the browser build there is no HTTP client (a page fetches the
    /// fragments itself): every request fails at once.
    #[cfg(target_arch = "wasm32")]
    fn get_once(&self, _url: &str, _limit: u64) -> Result<Got, LiveErrorKind> {
        let Agent = self.agent;
        Err(LiveErrorKind::Transport {
            reason: "live broadcasts are not read in the WebAssembly build".to_string(),
            attempts: 1,
        })
    }

    /// A GET retried on 5xx and transport failures; `Ok(None)` for a 404.
    fn get(
        &self,
        url: &str,
        fragment: Option<&str>,
        limit: u64,
    ) -> Result<Option<Vec<u8>>, LiveError> {
        let mut attempts = 0u32;
        let mut wait = self.options.backoff;
        loop {
            attempts += 1;
            match self.get_once(url, limit) {
                Ok(Got::Body(body)) => return Ok(Some(body)),
                Ok(Got::NotFound) => return Ok(None),
                Err(kind) if kind.is_retryable() && attempts <= self.options.retries => {
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(MAX_BACKOFF);
                }
                Err(kind) => {
                    return Err(self.error_at(
                        url.to_string(),
                        fragment,
                        kind.with_attempts(attempts),
                    ))
                }
            }
        }
    }

    /// [`BroadcastReader::get`] of something that must come: a 404 is
    /// asked again at the poll interval, up to the idle time-out.
    fn fetch_waiting(
        &mut self,
        url: &str,
        fragment: Option<&str>,
        limit: u64,
    ) -> Result<Vec<u8>, LiveError> {
        let since = Instant::now();
        loop {
            if let Some(body) = self.get(url, fragment, limit)? {
                return Ok(body);
            }
            let waited = since.elapsed();
            if waited >= self.options.idle_timeout {
                return Err(self.error_at(
                    url.to_string(),
                    fragment,
                    LiveErrorKind::NotFound { waited },
                ));
            }
            std::thread::sleep(self.poll_interval());
        }
    }

    /// Converts one fragment's body into `out`, counting it against the
    /// total limit; `Ok(true)` when it held `DEM_Stop`.
    fn convert(&mut self, url: &str, name: &str, data: &[u8]) -> Result<bool, LiveError> {
        self.total = self.total.saturating_add(data.len() as u64);
        if self.total > self.options.max_total_bytes {
            let kind = LiveErrorKind::TotalTooLarge {
                total: self.total,
                limit: self.options.max_total_bytes,
            };
            return Err(self.error_at(url.to_string(), Some(name), kind));
        }
        self.fragments += 1;
        self.last_new = Instant::now();
        match self.converter.push(name, data, &mut self.out) {
            Ok(Pushed::Records) => Ok(false),
            Ok(Pushed::Stop) => Ok(true),
            Err(e) => Err(self.error_at(
                url.to_string(),
                Some(name),
                LiveErrorKind::Fragment(Box::new(e)),
            )),
        }
    }

    /// Fetches and converts what comes next, waiting for it; ends the
    /// stream (a `DEM_Stop` frame) at the broadcast's `DEM_Stop` or after
    /// the idle time-out.
    fn advance(&mut self) -> Result<(), LiveError> {
        let (n, kind) = match self.next {
            Next::Done => return Ok(()),
            Next::Full(n) => (n, "full"),
            Next::Delta(n) => (n, "delta"),
        };
        let name = format!("{n}/{kind}");
        let url = format!("{}/{name}", self.base);
        let limit = self.options.max_fragment_bytes;
        loop {
            if let Some(body) = self.get(&url, Some(&name), limit)? {
                let stop = self.convert(&url, &name, &body)?;
                self.next = match self.next {
                    _ if stop => Next::Done,
                    Next::Full(n) => Next::Delta(n),
                    Next::Delta(n) if n < MAX_FRAGMENT * 2 => Next::Delta(n + 1),
                    _ => Next::Done,
                };
                if self.next == Next::Done {
                    self.converter.finish(&mut self.out);
                }
                return Ok(());
            }
            let waited = self.last_new.elapsed();
            if waited >= self.options.idle_timeout {
                if matches!(self.next, Next::Full(_)) {
                    // The first keyframe never came: nothing to play.
                    return Err(self.error_at(
                        url,
                        Some(&name),
                        LiveErrorKind::NotFound { waited },
                    ));
                }
                self.next = Next::Done;
                self.converter.finish(&mut self.out);
                return Ok(());
            }
            std::thread::sleep(self.poll_interval().min(self.options.idle_timeout - waited));
        }
    }
}

impl Read for BroadcastReader {
    /// The next bytes of the `.dem` stream, blocking until a fragment
    /// arrives. `Ok(0)` once the broadcast has ended. A failure (retries
    /// run out, a limit, a damaged fragment) is an error of kind
    /// [`std::io::ErrorKind::Other`] carrying the [`LiveError`] (also kept
    /// in [`BroadcastReader::error`]); later reads give `Ok(0)`.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.pos < self.out.len() {
                let rest = self.out.get(self.pos..).unwrap_or_default();
                let n = rest.len().min(buf.len());
                if let (Some(dst), Some(src)) = (buf.get_mut(..n), rest.get(..n)) {
                    dst.copy_from_slice(src);
                }
                self.pos += n;
                if self.pos == self.out.len() {
                    self.out.clear();
                    self.pos = 0;
                }
                return Ok(n);
            }
            if let Some(e) = &self.error {
                if self.error_told {
                    return Ok(0);
                }
                self.error_told = true;
                return Err(std::io::Error::other(e.clone()));
            }
            if self.next == Next::Done {
                return Ok(0);
            }
            if let Err(e) = self.advance() {
                // The records converted before the failure go first.
                self.next = Next::Done;
                self.error = Some(e);
            }
        }
    }
}
