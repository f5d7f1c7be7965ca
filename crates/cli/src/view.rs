//! `gamewire view DEMO`: the web replay viewer (`web/`) served on
//! 127.0.0.1 with the demo, and the address to open printed.
//!
//! A small HTTP/1.1 server on `std::net`, enough for one browser on the
//! same machine: `GET` (and `HEAD`) of the viewer's static files, and of
//! the demo at `/demo/<its file name>`; the page opens it when its address
//! carries `?demo=demo/<name>`. The demo is sent as it is on disk
//! (compressed too): the page's WebAssembly parser reads it. A request for
//! a path outside the web folder (`..`, a link leading out of it) is
//! refused (403); only the loopback address is bound, never a public
//! interface.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use gamewire_query::InputError;

use crate::error::CliError;

/// `gamewire view DEMO [--port P] [--web DIR]`.
#[derive(Debug, Args)]
pub(crate) struct ViewArgs {
    /// The demo (`.dem`, also `.dem.gz`, `.dem.bz2`, `.dem.zst`).
    demo: PathBuf,
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The viewer's folder (built by scripts/build_web.sh); by default
    /// `GAMEWIRE_WEB`, else the `web` folder of the source tree this binary
    /// was built from, else `web` beside the executable.
    #[arg(long)]
    web: Option<PathBuf>,
}

/// What the server serves.
#[derive(Debug)]
struct Site {
    /// The web folder, canonical.
    root: PathBuf,
    /// The demo's file name (its URL is `/demo/<name>`).
    demo_name: String,
    /// The demo's path.
    demo: PathBuf,
}

/// The web folder: the option, `GAMEWIRE_WEB`, the source tree's, or the
/// one beside the executable, whichever is given or found first.
fn web_folder(given: Option<PathBuf>) -> Result<PathBuf, CliError> {
    if let Some(dir) = given.or_else(|| std::env::var_os("GAMEWIRE_WEB").map(PathBuf::from)) {
        return Ok(dir);
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("web")));
    [Some(source), beside]
        .into_iter()
        .flatten()
        .find(|d| d.join("index.html").is_file())
        .ok_or(CliError::Usage(
            "no web folder found: give --web DIR (the repository's web/, built by scripts/build_web.sh)",
        ))
}

/// Serves the viewer and the demo until the process is stopped.
pub(crate) fn view(args: ViewArgs) -> Result<(), CliError> {
    let web = web_folder(args.web)?;
    let root = web.canonicalize().map_err(|e| {
        CliError::UsageText(format!("cannot open the web folder {}: {e}", web.display()))
    })?;
    if !root.join("pkg").join("gamewire_wasm.js").is_file() {
        return Err(CliError::UsageText(format!(
            "{} has no pkg/gamewire_wasm.js: build it with scripts/build_web.sh",
            root.display()
        )));
    }
    let meta = std::fs::metadata(&args.demo).map_err(|source| CliError::Input {
        path: args.demo.clone(),
        source: Box::new(InputError::Read {
            path: args.demo.clone(),
            source,
        }),
    })?;
    if !meta.is_file() {
        return Err(CliError::UsageText(format!(
            "{} is not a file",
            args.demo.display()
        )));
    }
    let demo_name = args
        .demo
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "demo.dem".to_string());
    let listener = TcpListener::bind(("127.0.0.1", args.port)).map_err(|e| {
        CliError::UsageText(format!("cannot listen on 127.0.0.1:{}: {e}", args.port))
    })?;
    let port = listener.local_addr().map_err(CliError::Output)?.port();
    let site = Arc::new(Site {
        root,
        demo_name,
        demo: args.demo,
    });
    // A Teeworlds demo (it starts with `TWDEMO\0`) opens in the Teeworlds
    // replay page; everything else in the Source 2 one.
    let page = if starts_with_teeworlds_magic(&site.demo) {
        "teeworlds.html"
    } else {
        ""
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "http://127.0.0.1:{port}/{page}?demo=demo/{}",
        encode(&site.demo_name)
    )
    .and_then(|()| out.flush())
    .map_err(CliError::Output)?;
    drop(out);
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let site = Arc::clone(&site);
        // One thread per connection: a browser keeps a few open at once.
        std::thread::spawn(move || {
            let _ = serve(&site, stream);
        });
    }
    Ok(())
}

/// Answers the requests of one connection (keep-alive) until it closes.
fn serve(site: &Site, stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        // The headers, to the blank line (none is needed).
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
                break;
            }
            if header.len() > 16 * 1024 {
                return Ok(());
            }
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let head = method == "HEAD";
        let response = if method != "GET" && !head {
            Response::status(405, "Method Not Allowed")
        } else {
            respond(site, target)
        };
        response.write(&mut stream, head)?;
    }
}

/// A response: status, type and body.
struct Response {
    code: u16,
    reason: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Response {
    fn status(code: u16, reason: &'static str) -> Response {
        Response {
            code,
            reason,
            content_type: "text/plain; charset=utf-8",
            body: format!("{code} {reason}\n").into_bytes(),
        }
    }

    fn write(&self, out: &mut TcpStream, head: bool) -> std::io::Result<()> {
        write!(
            out,
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
            self.code,
            self.reason,
            self.content_type,
            self.body.len()
        )?;
        if !head {
            out.write_all(&self.body)?;
        }
        out.flush()
    }
}

/// The response to a request target.
fn respond(site: &Site, target: &str) -> Response {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let Some(path) = decode(path) else {
        return Response::status(400, "Bad Request");
    };
    if path.strip_prefix("/demo/") == Some(site.demo_name.as_str()) {
        return match std::fs::read(&site.demo) {
            Ok(body) => Response {
                code: 200,
                reason: "OK",
                content_type: "application/octet-stream",
                body,
            },
            Err(_) => Response::status(404, "Not Found"),
        };
    }
    let relative = path.trim_start_matches('/');
    let relative = if relative.is_empty() || relative.ends_with('/') {
        format!("{relative}index.html")
    } else {
        relative.to_string()
    };
    match resolve(&site.root, &relative) {
        Resolved::File(file) => match std::fs::read(&file) {
            Ok(body) => Response {
                code: 200,
                reason: "OK",
                content_type: content_type(&file),
                body,
            },
            Err(_) => Response::status(404, "Not Found"),
        },
        Resolved::Outside => Response::status(403, "Forbidden"),
        Resolved::Missing => Response::status(404, "Not Found"),
    }
}

/// Where a request path leads.
#[derive(Debug, PartialEq)]
enum Resolved {
    /// A file inside the root.
    File(PathBuf),
    /// Outside the root (`..`, an absolute path, a link leading out).
    Outside,
    /// Nothing there.
    Missing,
}

/// Resolves `relative` (already percent-decoded) under `root` (canonical).
fn resolve(root: &Path, relative: &str) -> Resolved {
    let candidate = Path::new(relative);
    if candidate
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        || relative.contains('\\')
    {
        return Resolved::Outside;
    }
    match root.join(candidate).canonicalize() {
        Ok(real) if !real.starts_with(root) => Resolved::Outside,
        Ok(real) if real.is_file() => Resolved::File(real),
        _ => Resolved::Missing,
    }
}

/// The type a browser needs (module scripts and `application/wasm` are
/// checked strictly).
fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// Percent-decodes a URL path (`None` for a bad escape or bytes that are
/// not UTF-8).
fn decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Percent-encodes a file name for a URL path segment.
fn encode(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Whether the file at `path` begins as a Teeworlds demo does
/// (`TWDEMO\0`).
fn starts_with_teeworlds_magic(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 7];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"TWDEMO\0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_root_are_refused() -> std::io::Result<()> {
        let dir = std::env::temp_dir().join(format!("gamewire-view-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let root = dir.canonicalize()?;
        std::fs::write(root.join("index.html"), "x")?;
        assert_eq!(
            resolve(&root, "index.html"),
            Resolved::File(root.join("index.html"))
        );
        assert_eq!(resolve(&root, "../etc/passwd"), Resolved::Outside);
        assert_eq!(resolve(&root, "a/../../x"), Resolved::Outside);
        assert_eq!(resolve(&root, "/etc/passwd"), Resolved::Outside);
        assert_eq!(resolve(&root, "missing.js"), Resolved::Missing);
        std::fs::remove_dir_all(&dir)
    }

    #[test]
    fn names_round_trip_through_the_url() {
        let name = "my demo #1 (ü).dem.gz";
        assert_eq!(decode(&encode(name)).as_deref(), Some(name));
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%4"), None);
    }
}
