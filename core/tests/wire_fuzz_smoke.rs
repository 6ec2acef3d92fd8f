//! A bounded, deterministic run of the cargo-fuzz targets (`fuzz/`) on
//! stable: each target's own code (`fuzz/src/lib.rs`, included below) on
//! the golden vectors, then on random bytes and on mutated vectors (bit
//! flips, byte overwrites, insertions, deletions, truncations, splices),
//! a fixed number of inputs from a fixed seed. A target panics when the
//! decoder breaks a property (a decoded frame re-encodes to its bytes); a
//! panic here is reported with the input that caused it.

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use zlink_core::wire::{Frame, HEADER_LEN, ReplyResult, WireError};

#[allow(unreachable_pub)]
#[path = "../../fuzz/src/lib.rs"]
mod targets;

type Target = fn(&[u8]) -> Result<Frame, WireError>;

/// Each fuzz target with the command byte whose bodies it takes (0: whole
/// frames; `SESSION`: a session command byte, then its body).
const TARGETS: [(&str, Target, u8); 7] = [
    ("decode_frame", targets::decode_frame, 0),
    ("decode_message", targets::decode_message, 1),
    ("decode_request", targets::decode_request, 2),
    ("decode_reply", targets::decode_reply, 3),
    ("decode_rejection", targets::decode_rejection, 4),
    ("decode_message_follow", targets::decode_message_follow, 50),
    ("decode_session", targets::decode_session, SESSION),
];

/// The pseudo command of `decode_session`: its input is a session command
/// byte (`targets::SESSION_COMMANDS`) then that command's body.
const SESSION: u8 = 255;

/// The input `target_command` takes from a whole frame, if it takes one
/// from it: the frame itself (0), its body (its command), or its command
/// byte then its body (`SESSION`, a session command).
fn input_of(target_command: u8, frame: &[u8]) -> Option<Vec<u8>> {
    match target_command {
        0 => Some(frame.to_vec()),
        SESSION => (frame.len() >= HEADER_LEN && targets::SESSION_COMMANDS.contains(&frame[3]))
            .then(|| [&frame[3..4], &frame[HEADER_LEN..]].concat()),
        command => {
            (frame.len() >= HEADER_LEN && frame[3] == command).then(|| frame[HEADER_LEN..].to_vec())
        }
    }
}

/// Mutated inputs per target, on top of the vectors and the random ones.
const MUTATIONS: usize = 40_000;
/// Purely random inputs per target.
const RANDOM: usize = 5_000;

fn vector_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/wire")
}

/// Every `.bin` in `dir`, sorted by name.
fn bins(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .map(|p| {
            let name = p
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, fs::read(&p).expect("a readable vector"))
        })
        .collect();
    out.sort();
    out
}

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let len = self.below(max + 1);
        (0..len).map(|_| self.next() as u8).collect()
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Byte values that sit on the decoder's boundaries (codes, presence bytes,
/// mesh-name bounds, command numbers).
const INTERESTING: [u8; 15] = [0, 1, 2, 3, 4, 5, 6, 10, 23, 24, 42, 44, 50, 0x7f, 0xff];

/// One to four random edits of `input`, drawing splices from `pool`.
fn mutate(rng: &mut Rng, input: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(8) {
            0 if !out.is_empty() => {
                let at = rng.below(out.len());
                out[at] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let at = rng.below(out.len());
                out[at] = *rng.pick(&INTERESTING);
            }
            2 => {
                let at = rng.below(out.len() + 1);
                out.insert(at, rng.next() as u8);
            }
            3 if !out.is_empty() => {
                let at = rng.below(out.len());
                let end = (at + 1 + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
            4 => {
                let len = rng.below(out.len() + 1);
                out.truncate(len);
            }
            5 => {
                // Splice: a prefix of this input, a suffix of another.
                let other = rng.pick(pool);
                let cut = rng.below(out.len() + 1);
                let from = rng.below(other.len() + 1);
                out.truncate(cut);
                out.extend_from_slice(&other[from..]);
            }
            6 if out.len() >= 8 => {
                // A big-endian length or count field set to an edge value.
                let at = rng.below(out.len() - 1);
                // Object-ID bound 1024/1025, reply-message bound 4096/4097.
                let v: u16 = *rng.pick(&[0, 1, 0x00ff, 0x0400, 0x0401, 0x1000, 0x1001, 0xffff]);
                out[at..at + 2].copy_from_slice(&v.to_be_bytes());
            }
            _ => {
                let at = rng.below(out.len() + 1);
                let chunk = rng.bytes(12);
                out.splice(at..at, chunk);
            }
        }
    }
    out
}

/// Rewrites a whole frame's body length to match its bytes, so a mutation
/// reaches the body decoder instead of stopping at LengthMismatch.
fn fix_length(frame: &mut [u8]) {
    if frame.len() >= HEADER_LEN {
        let len = (frame.len() - HEADER_LEN) as u32;
        frame[6..10].copy_from_slice(&len.to_be_bytes());
    }
}

#[derive(Default)]
struct Tally {
    inputs: usize,
    decoded: usize,
    kinds: std::collections::BTreeSet<&'static str>,
    /// Reply results that decoded: "Ok", "Error".
    replies: std::collections::BTreeSet<&'static str>,
    /// Rejections that decoded, by reply route: "none", "route".
    rejections: std::collections::BTreeSet<&'static str>,
    /// Session commands that decoded.
    sessions: std::collections::BTreeSet<u8>,
}

fn kind_of(e: &WireError) -> &'static str {
    match e {
        WireError::Truncated { .. } => "Truncated",
        WireError::BadMagic => "BadMagic",
        WireError::UnsupportedVersion(_) => "UnsupportedVersion",
        WireError::UnknownCommand(_) => "UnknownCommand",
        WireError::FlagsNotAllowed { .. } => "FlagsNotAllowed",
        WireError::LengthMismatch { .. } => "LengthMismatch",
        WireError::TooLong { .. } => "TooLong",
        WireError::Invalid { .. } => "Invalid",
        WireError::TrailingBytes(_) => "TrailingBytes",
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `target` on `input`; a panic fails the test with the input in hex.
fn run(name: &str, target: Target, input: &[u8], what: &str, tally: &mut Tally) {
    let result = panic::catch_unwind(AssertUnwindSafe(|| target(input)));
    match result {
        Ok(Ok(frame)) => {
            tally.decoded += 1;
            match frame {
                Frame::Reply(r) => {
                    tally.replies.insert(match r.result {
                        ReplyResult::Ok(_) => "Ok",
                        ReplyResult::Error(_) => "Error",
                    });
                }
                Frame::Rejection(r) => {
                    tally.rejections.insert(match r.reply_route {
                        None => "none",
                        Some(_) => "route",
                    });
                }
                Frame::Session(f) => {
                    tally.sessions.insert(f.command());
                }
                _ => {}
            }
        }
        Ok(Err(e)) => {
            tally.kinds.insert(kind_of(&e));
        }
        Err(_) => panic!(
            "{name} panicked on {what} ({} bytes): {}",
            input.len(),
            hex(input)
        ),
    }
    tally.inputs += 1;
}

#[test]
fn fuzz_targets_survive_vectors_random_and_mutated_inputs() {
    let valid = bins(&vector_dir());
    let invalid = bins(&vector_dir().join("invalid"));
    assert!(valid.len() >= 15 && invalid.len() >= 20);
    let frames: Vec<Vec<u8>> = valid
        .iter()
        .chain(&invalid)
        .map(|(_, b)| b.clone())
        .collect();

    let mut report = String::new();
    for (seed, (name, target, command)) in TARGETS.into_iter().enumerate() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (seed as u64 + 1));
        let mut tally = Tally::default();
        // The inputs this target takes: whole frames, or the bodies of the
        // vectors of its command (and the other vectors' bodies too, for
        // cross-command confusion; for decode_session, each body behind
        // every session command byte in turn).
        let seeds: Vec<Vec<u8>> = match command {
            0 => frames.clone(),
            SESSION => frames
                .iter()
                .filter(|f| f.len() >= HEADER_LEN)
                .enumerate()
                .map(|(i, f)| {
                    let selector = targets::SESSION_COMMANDS[i % targets::SESSION_COMMANDS.len()];
                    [&[selector][..], &f[HEADER_LEN..]].concat()
                })
                .collect(),
            _ => frames
                .iter()
                .filter(|f| f.len() >= HEADER_LEN)
                .map(|f| f[HEADER_LEN..].to_vec())
                .collect(),
        };
        let own: Vec<Vec<u8>> = valid
            .iter()
            .filter_map(|(_, b)| input_of(command, b))
            .collect();
        assert!(!own.is_empty(), "{name}: no vector of command {command}");

        for (i, input) in seeds.iter().enumerate() {
            run(name, target, input, &format!("seed #{i}"), &mut tally);
        }
        // Every valid vector (or body of this command) decodes.
        for input in &own {
            assert!(target(input).is_ok(), "{name}: a valid vector fails");
        }
        for i in 0..RANDOM {
            let input = rng.bytes(if i % 2 == 0 { 16 } else { 400 });
            run(name, target, &input, &format!("random #{i}"), &mut tally);
        }
        for i in 0..MUTATIONS {
            // Mostly this target's own valid inputs: they reach deepest.
            let base = if rng.below(4) == 0 {
                rng.pick(&seeds)
            } else {
                rng.pick(&own)
            };
            let mut input = mutate(&mut rng, base, &seeds);
            if command == 0 && rng.below(4) != 0 {
                fix_length(&mut input);
            }
            run(name, target, &input, &format!("mutation #{i}"), &mut tally);
        }

        // The run reached past the header: some mutants decode, and the
        // body checks (not only the framing ones) fire.
        assert!(tally.decoded > 0, "{name}: no input decoded");
        for kind in ["Truncated", "Invalid"] {
            assert!(tally.kinds.contains(kind), "{name}: never {kind}");
        }
        if command == 0 {
            for kind in ["BadMagic", "LengthMismatch", "UnknownCommand"] {
                assert!(tally.kinds.contains(kind), "{name}: never {kind}");
            }
        }
        if command == 3 {
            // Both results decode, and the payload/message bounds are hit.
            assert_eq!(
                tally.replies.iter().copied().collect::<Vec<_>>(),
                ["Error", "Ok"],
                "{name}: decoded replies"
            );
            assert!(tally.kinds.contains("TooLong"), "{name}: never TooLong");
        }
        if command == SESSION {
            // Every session command decodes, and the payload and object-ID
            // bounds and leftover bytes are hit.
            assert_eq!(
                tally.sessions.iter().copied().collect::<Vec<_>>(),
                targets::SESSION_COMMANDS,
                "{name}: decoded session commands"
            );
            for kind in ["TooLong", "TrailingBytes"] {
                assert!(tally.kinds.contains(kind), "{name}: never {kind}");
            }
        }
        if command == 4 {
            // Refused messages and refused requests (with their reply
            // route) both decode.
            assert_eq!(
                tally.rejections.iter().copied().collect::<Vec<_>>(),
                ["none", "route"],
                "{name}: decoded rejections"
            );
        }
        report.push_str(&format!(
            "{name}: {} inputs, {} decoded, errors {:?}\n",
            tally.inputs, tally.decoded, tally.kinds
        ));
    }
    println!("{report}");
}
