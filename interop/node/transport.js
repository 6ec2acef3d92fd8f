'use strict';
// Frames between nodes over TCP on loopback: a connection starts with the
// connecting node's routing ID (8 bytes, big-endian), then each frame is a
// 4-byte big-endian length and the frame's bytes (the framing of
// docs/interop.md; copied from examples/node). Arrivals go to
// `onArrival(from, frame)` in order.
const net = require('node:net');

class Transport {
  constructor(self, onArrival) {
    this.self = BigInt(self);
    this.onArrival = onArrival;
    this.ports = new Map();
    this.conns = new Map();
    this.server = net.createServer((socket) => this.read(socket));
  }

  listen() {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => resolve(this.server.address().port)));
  }

  peer(rid, port) { this.ports.set(BigInt(rid), port); }

  read(socket) {
    socket.setNoDelay(true);
    let buf = Buffer.alloc(0);
    let from = null;
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (from === null) {
        if (buf.length < 8) return;
        from = buf.readBigUInt64BE(0);
        buf = buf.subarray(8);
      }
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const n = buf.readUInt32BE(0);
        this.onArrival(from, Buffer.from(buf.subarray(4, 4 + n)));
        buf = buf.subarray(4 + n);
      }
    });
    socket.on('error', () => {});
  }

  /** Sends one frame to node `to`; false if it cannot be reached. */
  send(to, frame) {
    to = BigInt(to);
    let conn = this.conns.get(to);
    if (conn === undefined) {
      const port = this.ports.get(to);
      if (port === undefined) return false;
      conn = net.connect(port, '127.0.0.1');
      conn.setNoDelay(true);
      conn.on('error', () => this.conns.delete(to));
      const hello = Buffer.alloc(8);
      hello.writeBigUInt64BE(this.self);
      conn.write(hello);
      this.conns.set(to, conn);
    }
    const len = Buffer.alloc(4);
    len.writeUInt32BE(frame.length);
    conn.write(Buffer.concat([len, frame]));
    return true;
  }

  close() {
    for (const c of this.conns.values()) c.destroy();
    this.server.close();
  }
}

module.exports = { Transport };
