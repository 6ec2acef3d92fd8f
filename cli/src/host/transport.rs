//! Frames between hosts over TCP on loopback (docs/interop.md): a
//! connection starts with the connecting node's routing ID (8 bytes,
//! big-endian), then each frame is a 4-byte big-endian length and the
//! frame's bytes. Reader threads put arrivals on the loop's channel.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::mpsc::Sender;
use std::thread;

/// What the loop thread is woken for.
pub(super) enum Input {
    Frame(u64, Vec<u8>),
    Command(String),
}

/// Length-prefixed frames over TCP: arrivals go to the loop's channel.
pub(super) struct Transport {
    pub(super) rid: u64,
    pub(super) ports: HashMap<u64, u16>,
    pub(super) conns: HashMap<u64, TcpStream>,
}

impl Transport {
    /// Listens on a free loopback port; each accepted connection gets a reader thread.
    pub(super) fn listen(inbox: Sender<Input>) -> std::io::Result<u16> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = listener.local_addr()?.port();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let inbox = inbox.clone();
                thread::spawn(move || Self::read(stream, &inbox));
            }
        });
        Ok(port)
    }

    fn read(mut stream: TcpStream, inbox: &Sender<Input>) -> Option<()> {
        let mut hello = [0u8; 8];
        stream.read_exact(&mut hello).ok()?;
        let from = u64::from_be_bytes(hello);
        loop {
            let mut head = [0u8; 4];
            stream.read_exact(&mut head).ok()?;
            let mut frame = vec![0u8; u32::from_be_bytes(head) as usize];
            stream.read_exact(&mut frame).ok()?;
            inbox.send(Input::Frame(from, frame)).ok()?;
        }
    }

    /// Sends one frame to node `to`; false if it cannot be reached.
    pub(super) fn send(&mut self, to: u64, frame: &[u8]) -> bool {
        let sent = (|| -> std::io::Result<()> {
            if !self.conns.contains_key(&to) {
                let port = self
                    .ports
                    .get(&to)
                    .copied()
                    .ok_or(std::io::ErrorKind::NotFound)?;
                let mut s = TcpStream::connect((Ipv4Addr::LOCALHOST, port))?;
                s.set_nodelay(true)?;
                s.write_all(&self.rid.to_be_bytes())?;
                self.conns.insert(to, s);
            }
            let conn = self
                .conns
                .get_mut(&to)
                .ok_or(std::io::ErrorKind::NotFound)?;
            let len = u32::try_from(frame.len()).map_err(|_| std::io::ErrorKind::InvalidInput)?;
            conn.write_all(&len.to_be_bytes())?;
            conn.write_all(frame)
        })();
        if sent.is_err() {
            self.conns.remove(&to);
        }
        sent.is_ok()
    }
}
