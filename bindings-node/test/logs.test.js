'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const z = require('..');

test('core log records reach the callback on the event loop', async () => {
  const records = [];
  z.onLog((r) => records.push(r), 'trace');
  const rt = new z.Runtime({ mesh: 'main', rid: 1 });
  await rt.onFrame(2, Buffer.from([1, 2, 3]));
  for (let i = 0; i < 100 && records.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  z.onLog(null);
  rt.close();
  assert.ok(records.length > 0, 'a record arrived');
  assert.equal(typeof records[0].message, 'string');
  assert.ok(['error', 'warn', 'info', 'debug', 'trace'].includes(records[0].level), records[0].level);
  assert.throws(() => z.onLog(() => {}, 'loud'), { code: 'UnknownLogLevel' });
});
