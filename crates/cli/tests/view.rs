//! `gamewire view`: the viewer's folder and the demo served on 127.0.0.1,
//! the address printed; paths outside the folder refused.

use std::error::Error;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

type TestResult = Result<(), Box<dyn Error>>;

/// A web folder of our own: the files `view` needs, and one beside it that
/// must not be reachable.
fn web_folder(name: &str) -> Result<PathBuf, Box<dyn Error>> {
    let base = std::env::temp_dir().join(format!("gamewire-view-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let web = base.join("web");
    std::fs::create_dir_all(web.join("pkg"))?;
    std::fs::write(
        web.join("index.html"),
        "<!doctype html><title>viewer</title>",
    )?;
    std::fs::write(web.join("pkg/gamewire_wasm.js"), "export default 1;")?;
    std::fs::write(web.join("pkg/gamewire_wasm_bg.wasm"), b"\0asm\x01\0\0\0")?;
    std::fs::write(base.join("secret.txt"), "outside the web folder")?;
    Ok(web)
}

/// Kills the server when the test ends, whatever happened.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(demo: &Path, web: &Path) -> Result<(Server, String), Box<dyn Error>> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(["view", "--port", "0", "--web"])
        .arg(web)
        .arg(demo)
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    Ok((server, line.trim().to_string()))
}

/// One request on its own connection: status, headers, body.
fn request(
    port: u16,
    method: &str,
    target: &str,
) -> Result<(u16, String, Vec<u8>), Box<dyn Error>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )?;
    stream.flush()?;
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status)?;
    let code: u16 = status.split_whitespace().nth(1).ok_or("status")?.parse()?;
    let mut headers = String::new();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        reader.read_line(&mut h)?;
        if h.trim().is_empty() {
            break;
        }
        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse()?;
        }
        headers.push_str(&h);
    }
    let mut body = vec![0; if method == "HEAD" { 0 } else { length }];
    reader.read_exact(&mut body)?;
    Ok((code, headers, body))
}

#[test]
fn view_serves_the_page_and_the_demo() -> TestResult {
    let web = web_folder("serve")?;
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let (_server, url) = start(&demo, &web)?;
    let rest = url.strip_prefix("http://127.0.0.1:").ok_or(url.clone())?;
    let (port, path) = rest.split_once('/').ok_or("no path")?;
    assert_eq!(path, "?demo=demo/14065.dem");
    let port: u16 = port.parse()?;

    let (code, headers, body) = request(port, "GET", "/")?;
    assert_eq!(code, 200);
    assert!(headers.contains("text/html"));
    assert!(String::from_utf8(body)?.contains("viewer"));
    let (code, headers, _) = request(port, "GET", "/pkg/gamewire_wasm.js")?;
    assert_eq!(code, 200);
    assert!(headers.contains("text/javascript"), "{headers}");
    let (code, headers, _) = request(port, "GET", "/pkg/gamewire_wasm_bg.wasm")?;
    assert_eq!(code, 200);
    assert!(headers.contains("application/wasm"), "{headers}");
    let (code, _, body) = request(port, "GET", "/demo/14065.dem")?;
    assert_eq!(code, 200);
    assert_eq!(body, std::fs::read(&demo)?);
    let (code, _, body) = request(port, "HEAD", "/demo/14065.dem")?;
    assert_eq!((code, body.len()), (200, 0));

    for outside in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/pkg/../../secret.txt",
        "/%2F..%2Fsecret.txt",
    ] {
        let (code, _, body) = request(port, "GET", outside)?;
        assert_eq!(code, 403, "{outside}");
        assert!(!String::from_utf8_lossy(&body).contains("outside the web folder"));
    }
    assert_eq!(request(port, "GET", "/missing.js")?.0, 404);
    assert_eq!(request(port, "GET", "/demo/other.dem")?.0, 404);
    assert_eq!(request(port, "POST", "/")?.0, 405);
    assert_eq!(request(port, "GET", "/%zz")?.0, 400);
    Ok(())
}

#[test]
fn view_needs_a_built_folder_and_a_demo() -> TestResult {
    let web = web_folder("errors")?;
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let out = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(["view", "--web"])
        .arg(&web)
        .arg("no-such.dem")
        .output()?;
    assert_eq!(out.status.code(), Some(1), "a demo that cannot be read");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such.dem"));
    std::fs::remove_dir_all(web.join("pkg"))?;
    let out = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(["view", "--web"])
        .arg(&web)
        .arg(&demo)
        .output()?;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("scripts/build_web.sh"));
    Ok(())
}
