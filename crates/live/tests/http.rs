//! The live reader against a real relay on 127.0.0.1 (the test server,
//! `.ci/broadcast_server.py`) serving the corpus broadcasts: the `.dem`
//! bytes read over HTTP are those of the folder's fragments converted at
//! once, after every fault the server injects too; when the retries run
//! out the error names the URL, the fragment and the last tick, and the
//! bytes before it parse; a hostile server ends in a clear error within
//! the limits.

mod common;

use std::io::Read;
use std::time::Duration;

use common::folder_fragments;
use common::server::{corpus_broadcasts, Relay, Result};
use gamewire_live::{BroadcastReader, LiveError, LiveErrorKind, LiveOptions};
use gamewire_source2::broadcast::{to_demo, Converter};
use gamewire_source2::{parse_with, NoVisitor};

/// Quick options for a relay releasing a fragment every few ms.
fn quick() -> LiveOptions {
    LiveOptions {
        idle_timeout: Duration::from_millis(800),
        retries: 4,
        backoff: Duration::from_millis(30),
        request_timeout: Duration::from_millis(1500),
        poll: Some(Duration::from_millis(10)),
        ..LiveOptions::default()
    }
}

/// Everything the reader gives, and its error if it failed.
fn read_all(url: &str, options: LiveOptions) -> Result<(Vec<u8>, Option<LiveError>)> {
    let mut reader = BroadcastReader::open(url, options)?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 7000];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok((out, None)),
            Ok(n) => out.extend_from_slice(buf.get(..n).ok_or("read past the buffer")?),
            Err(e) => {
                let live = e
                    .get_ref()
                    .and_then(|i| i.downcast_ref::<LiveError>())
                    .cloned()
                    .ok_or_else(|| format!("not a live error: {e}"))?;
                assert_eq!(reader.error(), Some(&live));
                // Later reads end the stream.
                assert_eq!(reader.read(&mut buf)?, 0);
                return Ok((out, Some(live)));
            }
        }
    }
}

#[test]
fn both_corpus_broadcasts_read_over_http_are_the_folder_bytes() -> Result {
    for dir in corpus_broadcasts() {
        let (expected, cut) = to_demo(&folder_fragments(&dir)?);
        assert!(cut.is_none(), "{}: {cut:?}", dir.display());
        // Ended by the relay's DEM_Stop, and by the idle time-out.
        for end in ["stop", "idle"] {
            let relay = Relay::start(&dir, 25, &["--end", end])?;
            let (got, error) = read_all(&relay.url, quick())?;
            assert!(error.is_none(), "{} {end}: {error:?}", dir.display());
            assert!(
                got == expected,
                "{} {end}: {} bytes, expected {}",
                dir.display(),
                got.len(),
                expected.len()
            );
        }
    }
    Ok(())
}

#[test]
fn every_fault_retried_gives_the_folder_bytes() -> Result {
    let dir = &corpus_broadcasts()[0];
    let (expected, _) = to_demo(&folder_fragments(dir)?);
    for fault in [
        "notfound",
        "500",
        "slow",
        "cut",
        "reset",
        "restart",
        "500@start",
        "reset@full",
        "cut@start",
        "slow@sync",
        "500@sync",
    ] {
        let relay = Relay::start(
            dir,
            20,
            &[
                "--end",
                "stop",
                "--fault",
                fault,
                "--slow-ms",
                "2500",
                "--restart-ms",
                "300",
            ],
        )?;
        let (got, error) = read_all(&relay.url, quick())?;
        assert!(error.is_none(), "{fault}: {error:?}");
        assert!(
            got == expected,
            "{fault}: {} bytes, expected {}",
            got.len(),
            expected.len()
        );
    }
    Ok(())
}

#[test]
fn retries_run_out_with_the_url_fragment_and_last_tick_and_keep_what_came() -> Result {
    let dir = &corpus_broadcasts()[0];
    let fragments = folder_fragments(dir)?;
    let (whole, _) = to_demo(&fragments);
    // 500 for ever on the delta of fragment 37 (the third).
    let relay = Relay::start(dir, 10, &["--fault", "500-always@37"])?;
    let (got, error) = read_all(&relay.url, quick())?;
    let error = error.ok_or("retries ran out without an error")?;
    assert_eq!(error.url, format!("{}/37/delta", relay.url));
    assert_eq!(error.fragment.as_deref(), Some("37/delta"));
    assert_eq!(
        error.kind,
        LiveErrorKind::Status {
            status: 500,
            attempts: 5
        }
    );
    let text = error.to_string();
    assert!(
        text.contains("/37/delta") && text.contains("fragment 37/delta"),
        "{text}"
    );
    assert!(
        text.contains(&format!("last tick {}", error.last_tick)),
        "{text}"
    );
    // What came before: start, 35/full, 35/delta and 36/delta, whole
    // (and no DEM_Stop).
    let mut converter = Converter::new();
    let mut before = Vec::new();
    converter.header(&mut before);
    for f in fragments.get(..4).ok_or("four fragments")? {
        converter.push(&f.name, &f.data, &mut before)?;
    }
    assert!(
        got == before,
        "{} bytes, expected {}",
        got.len(),
        before.len()
    );
    assert!(whole.starts_with(&got));
    assert_eq!(error.last_tick, converter.last_tick());
    // It parses to the last tick reached, a cut (no DEM_Stop).
    let (state, cut) = parse_with(&got, &mut NoVisitor)?;
    assert!(cut.is_some_and(|c| c.is_truncation()));
    assert_eq!(state.tick, error.last_tick);
    assert!(error.last_tick > 9631, "{}", error.last_tick);
    Ok(())
}

/// A hostile or broken relay: each ends in a clear error, within the
/// limits (no retry of a broken limit).
#[test]
fn a_hostile_relay_gives_a_clear_error_within_the_limits() -> Result {
    let dir = &corpus_broadcasts()[0];
    let limited = LiveOptions {
        max_fragment_bytes: 4 << 20,
        ..quick()
    };
    // An endless body stops one byte past the fragment limit.
    let relay = Relay::start(dir, 10, &["--fault", "endless@36"])?;
    let (got, error) = read_all(&relay.url, limited.clone())?;
    let error = error.ok_or("an endless body was accepted")?;
    assert_eq!(error.kind, LiveErrorKind::BodyTooLarge { limit: 4 << 20 });
    assert_eq!(error.fragment.as_deref(), Some("36/delta"));
    assert!(!got.is_empty());
    // A huge Content-Length is refused before its body is read.
    let relay = Relay::start(dir, 10, &["--fault", "huge-length@full"])?;
    let (_, error) = read_all(&relay.url, limited.clone())?;
    let error = error.ok_or("a huge Content-Length was accepted")?;
    assert_eq!(
        error.kind,
        LiveErrorKind::ContentLength {
            length: 1 << 50,
            limit: 4 << 20
        }
    );
    assert_eq!(error.fragment.as_deref(), Some("35/full"));
    // The broadcast's total.
    let small_total = LiveOptions {
        max_total_bytes: 1 << 20,
        ..quick()
    };
    let relay = Relay::start(dir, 10, &[])?;
    let (_, error) = read_all(&relay.url, small_total)?;
    let error = error.ok_or("the total limit was not kept")?;
    assert!(
        matches!(error.kind, LiveErrorKind::TotalTooLarge { limit, total } if limit == 1 << 20 && total > limit),
        "{error}"
    );
    // An absurd sync, and one that is not JSON: an error when opening.
    for (fault, says) in [
        ("absurd-sync", "fragment is 1000000000000000000"),
        ("not-json", "not JSON"),
    ] {
        let relay = Relay::start(dir, 10, &["--fault", fault])?;
        let error = BroadcastReader::open(&relay.url, quick())
            .err()
            .ok_or("opened")?;
        assert!(
            matches!(error.kind, LiveErrorKind::Sync(_)),
            "{fault}: {error}"
        );
        assert!(error.to_string().contains(says), "{fault}: {error}");
        assert_eq!(error.url, format!("{}/sync", relay.url));
    }
    // Nothing there: the sync is not found until the idle time-out.
    let relay = Relay::start(dir, 10, &[])?;
    let error = BroadcastReader::open(&format!("{}/nothing", relay.url), quick())
        .err()
        .ok_or("opened")?;
    assert!(
        matches!(error.kind, LiveErrorKind::NotFound { .. }),
        "{error}"
    );
    Ok(())
}

#[test]
fn sync_numbers_out_of_range_are_refused() {
    use gamewire_live::Sync;
    let ok = br#"{"tick":7244,"fragment":22,"signup_fragment":0,"tps":60,"keyframe_interval":3,"map":"street_test","protocol":5}"#;
    let sync = Sync::parse(ok);
    assert!(
        sync.as_ref()
            .is_ok_and(|s| s.fragment == 22 && s.tps == Some(60)),
        "{sync:?}"
    );
    // A fragment length in seconds need not be whole (the writer's
    // `--fragment-seconds`).
    let half = Sync::parse(br#"{"fragment":1,"keyframe_interval":0.5}"#);
    assert!(half.is_ok_and(|s| s.keyframe_interval == 0.5 && s.signup_fragment == 0));
    for bad in [
        r#"{"fragment":-1}"#,
        r#"{"fragment":1.5}"#,
        r#"{"fragment":99999999999}"#,
        r#"{"fragment":3,"signup_fragment":4}"#,
        r#"{"fragment":3,"tps":0}"#,
        r#"{"fragment":3,"tps":100000}"#,
        r#"{"fragment":3,"keyframe_interval":0}"#,
        r#"{"fragment":3,"keyframe_interval":86400}"#,
        r#"{"fragment":3,"keyframe_interval":"3"}"#,
        r#"{"fragment":3,"protocol":4}"#,
        r#"{"fragment":3,"tick":4294967296}"#,
        r#"{"fragment":3,"token_redirect":"../x"}"#,
        r#"{"fragment":3,"token_redirect":"http://elsewhere/"}"#,
        r#"{"tick":3}"#,
        r#"[1,2]"#,
    ] {
        assert!(Sync::parse(bad.as_bytes()).is_err(), "{bad}");
    }
}

#[test]
fn urls_are_told_apart_from_paths() {
    assert!(gamewire_live::is_url("http://127.0.0.1:8080/match"));
    assert!(gamewire_live::is_url("HTTPS://relay.example/x"));
    assert!(!gamewire_live::is_url("http:/x"));
    assert!(!gamewire_live::is_url("match.dem"));
    assert!(!gamewire_live::is_url("./http://x"));
    let error = BroadcastReader::open("ftp://x", LiveOptions::default()).err();
    assert!(error.is_some_and(|e| e.kind == LiveErrorKind::NotAUrl));
}
