//! Small OS helpers: finding programs, free ports, temp dirs, signals, a raw
//! RESP PING. Kept apart from the server logic so each piece stays testable.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Redis Cluster's bus listens on `port + 10000` unless told otherwise; we keep
/// that default (older servers lack `--cluster-port`), so a node's client port
/// must leave room for its bus port.
pub(crate) const CLUSTER_BUS_OFFSET: u16 = 10_000;

/// Finds `name` in the directories of `PATH`, with the error a developer
/// needs when it is missing.
pub(crate) fn find_program(name: &str) -> io::Result<PathBuf> {
    find_in_path(name, std::env::var_os("PATH").as_deref())
}

/// [`find_program`] with an explicit `PATH` value, so it can be tested without
/// changing the process environment (which is racy, and `unsafe` in 2024).
pub(crate) fn find_in_path(name: &str, path: Option<&OsStr>) -> io::Result<PathBuf> {
    path.into_iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{name} not found; run `make deps`"),
            )
        })
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A loopback port that was free a moment ago: the kernel picks it for a
/// listener we drop at once. Another process may take it before the server
/// binds it; callers detect that (`AddrInUse`) and try again.
pub(crate) fn free_port() -> io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

/// A free port whose cluster bus port (`port + 10000`) is free as well.
pub(crate) fn free_cluster_port() -> io::Result<u16> {
    // Ephemeral ports run up to ~61000, so a few picks overflow 65535 or land
    // next to a busy bus port; 50 tries make a failure practically impossible.
    for _ in 0..50 {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = listener.local_addr()?.port();
        let Some(bus) = port.checked_add(CLUSTER_BUS_OFFSET) else {
            continue;
        };
        if TcpListener::bind((Ipv4Addr::LOCALHOST, bus)).is_ok() {
            return Ok(port);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AddrInUse,
        "no free loopback port P with P+10000 free for the cluster bus",
    ))
}

/// Creates a fresh directory under the system temp dir. `create_dir` (not
/// `create_dir_all`) fails on an existing path, so a leftover from a crashed
/// run is skipped rather than reused.
pub(crate) fn unique_temp_dir() -> io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("zlink-testkit-{}-{n}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The last `lines` lines of a log file, for error messages; never fails.
pub(crate) fn log_tail(path: &Path, lines: usize) -> String {
    match fs::read_to_string(path) {
        Ok(text) => {
            let all: Vec<&str> = text.lines().collect();
            all[all.len().saturating_sub(lines)..].join("\n")
        }
        Err(e) => format!("(cannot read {}: {e})", path.display()),
    }
}

/// Sends `signal` (e.g. "STOP") to `pid` with the shell's `kill` builtin:
/// no libc and no `unsafe`, and it works even where procps' `/bin/kill` is not
/// installed.
pub(crate) fn send_signal(pid: u32, signal: &str) -> io::Result<()> {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", r#"kill -s "$0" "$1""#, signal])
        .arg(pid.to_string());
    run_capture(cmd).map(drop)
}

/// Runs a command to completion and returns its stdout; a non-zero exit is an
/// error carrying the command, its status and what it printed.
pub(crate) fn run_capture(mut cmd: Command) -> io::Result<String> {
    let out = cmd.stdin(Stdio::null()).output()?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        return Ok(stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Err(io::Error::other(format!(
        "{cmd:?} failed ({}): {}{}",
        out.status,
        stderr.trim(),
        stdout.trim()
    )))
}

/// Sends `PING` over a plain TCP connection (after `AUTH` if a password is
/// given) and waits for `+PONG` until `timeout` has passed in total.
///
/// Raw TCP on purpose: it needs no client library, and a paused server still
/// accepts connections (the kernel completes the handshake) but never answers,
/// which is exactly what the timeout detects (`ErrorKind::TimedOut`).
pub(crate) fn raw_ping(port: u16, password: Option<&str>, timeout: Duration) -> io::Result<()> {
    let deadline = Instant::now() + timeout;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_write_timeout(Some(timeout))?;
    let mut request = Vec::new();
    if let Some(pw) = password {
        // RESP array rather than an inline command: the password may hold spaces.
        request.extend_from_slice(&resp_command(&["AUTH", pw]));
    }
    request.extend_from_slice(b"PING\r\n");
    stream.write_all(&request)?;
    read_until_pong(&mut stream, deadline)
}

fn read_until_pong(stream: &mut TcpStream, deadline: Instant) -> io::Result<()> {
    let mut reply = Vec::new();
    let mut buf = [0u8; 512];
    while !reply.ends_with(b"+PONG\r\n") {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "no PONG in time"));
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut buf) {
            // Linux reports a read timeout as WouldBlock; name it for what it is.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "no PONG in time"));
            }
            other => other?,
        };
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed before +PONG",
            ));
        }
        reply.extend_from_slice(&buf[..n]);
        if reply.starts_with(b"-") || reply.windows(3).any(|w| w == b"\n-") {
            let text = String::from_utf8_lossy(&reply);
            return Err(io::Error::other(format!("redis replied {:?}", text.trim())));
        }
    }
    Ok(())
}

fn resp_command(args: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// File names of the TLS files in a server's dir: a throwaway test CA and
/// the server's certificate (for 127.0.0.1) that the CA signed.
pub(crate) const CA_FILE: &str = "tls-ca.pem";
const CA_KEY_FILE: &str = "tls-ca-key.pem";
pub(crate) const CERT_FILE: &str = "tls-cert.pem";
pub(crate) const KEY_FILE: &str = "tls-key.pem";
const CSR_FILE: &str = "tls-cert.csr";
const EXT_FILE: &str = "tls-cert.ext";

/// Makes, with `openssl`, a test CA and a server certificate for 127.0.0.1
/// signed by it, in `dir` (P-256 keys: quick to make). The server
/// certificate is a leaf (`CA:FALSE`, IP SAN, serverAuth), so a client that
/// trusts [`CA_FILE`] verifies it as it would a real deployment's.
pub(crate) fn test_ca_and_certificate(dir: &Path) -> io::Result<()> {
    let path = |name: &str| dir.join(name).into_os_string();
    let new_key = |cmd: &mut Command, key: &str| {
        cmd.args(["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"])
            .args(["-nodes", "-keyout"])
            .arg(path(key));
    };
    fs::write(
        dir.join(EXT_FILE),
        "basicConstraints=critical,CA:FALSE\n\
         keyUsage=critical,digitalSignature\n\
         extendedKeyUsage=serverAuth\n\
         subjectAltName=IP:127.0.0.1\n",
    )?;
    // The CA: self-signed; `req -x509` marks it CA:TRUE.
    openssl(|cmd| {
        cmd.args(["req", "-x509", "-days", "2", "-subj"]);
        cmd.arg("/CN=zlink-testkit CA");
        new_key(cmd, CA_KEY_FILE);
        cmd.arg("-out").arg(path(CA_FILE));
    })?;
    // The server's key and signing request; then the CA signs it.
    openssl(|cmd| {
        cmd.args(["req", "-new", "-subj", "/CN=127.0.0.1"]);
        new_key(cmd, KEY_FILE);
        cmd.arg("-out").arg(path(CSR_FILE));
    })?;
    openssl(|cmd| {
        cmd.args(["x509", "-req", "-days", "2", "-set_serial", "1"])
            .arg("-in")
            .arg(path(CSR_FILE))
            .arg("-CA")
            .arg(path(CA_FILE))
            .arg("-CAkey")
            .arg(path(CA_KEY_FILE))
            .arg("-extfile")
            .arg(path(EXT_FILE))
            .arg("-out")
            .arg(path(CERT_FILE));
    })
}

/// Runs one `openssl` command; its stderr is the error when it fails.
fn openssl(args: impl FnOnce(&mut Command)) -> io::Result<()> {
    let mut cmd = Command::new(find_program("openssl")?);
    args(&mut cmd);
    let out = cmd.stdin(Stdio::null()).output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "openssl could not make the test certificates: {}",
            String::from_utf8_lossy(&out.stderr)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_program_error_says_how_to_install_it() {
        let err = find_in_path("redis-server", Some(OsStr::new(""))).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert_eq!(err.to_string(), "redis-server not found; run `make deps`");
        let err = find_in_path("redis-server", None).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn resp_command_encodes_byte_lengths() {
        assert_eq!(
            resp_command(&["AUTH", "p w"]),
            b"*2\r\n$4\r\nAUTH\r\n$3\r\np w\r\n".to_vec()
        );
    }

    #[test]
    fn cluster_port_leaves_room_for_the_bus() {
        let port = free_cluster_port().unwrap();
        assert!(port.checked_add(CLUSTER_BUS_OFFSET).is_some());
    }

    #[test]
    fn log_tail_keeps_the_last_lines() {
        let dir = unique_temp_dir().unwrap();
        let log = dir.join("x.log");
        fs::write(&log, "a\nb\nc\n").unwrap();
        assert_eq!(log_tail(&log, 2), "b\nc");
        assert_eq!(log_tail(&log, 9), "a\nb\nc");
        fs::remove_dir_all(&dir).unwrap();
        assert!(log_tail(&log, 2).starts_with("(cannot read"));
    }
}
