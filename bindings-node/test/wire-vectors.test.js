'use strict';
// The golden wire vectors of testdata/wire: every valid frame decodes to its
// JSON description and re-encodes byte for byte; every invalid one fails
// with the error kind its description names.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const z = require('..');

function testdata(name) {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'testdata', name);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`no testdata/${name}`);
  }
}

const WIRE = testdata('wire');
const bins = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.bin')).sort().map((f) => path.join(dir, f));
const description = (bin) => JSON.parse(fs.readFileSync(bin.replace(/\.bin$/, '.json'), 'utf8'));

test('the vectors are there', () => {
  assert.ok(bins(WIRE).length >= 50);
  assert.ok(bins(path.join(WIRE, 'invalid')).length >= 50);
});

for (const bin of bins(WIRE)) {
  test(`valid ${path.basename(bin)}`, () => {
    const data = fs.readFileSync(bin);
    const desc = description(bin);
    const frame = z.wire.decode(data);
    assert.equal(frame.command, desc.command);
    assert.deepEqual(frame.description, desc.frame);
    assert.deepEqual(frame.bytes, data);
    assert.equal(data.length, desc.size);
    assert.equal(data[3], desc.command_number);
  });
}

for (const bin of bins(path.join(WIRE, 'invalid'))) {
  test(`invalid ${path.basename(bin)}`, () => {
    const desc = description(bin);
    const l = desc.limits;
    assert.throws(() => z.wire.decode(fs.readFileSync(bin), {
      maxObjectIdBytes: l.max_object_id_bytes, maxPayloadBytes: l.max_payload_bytes, maxStateBytes: l.max_state_bytes,
    }), (e) => e instanceof z.WireError && e.code === desc.error.kind);
  });
}
