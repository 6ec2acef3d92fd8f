'use strict';
// zlink's results as JSON. `JSON.stringify` throws on a bigint (IDs,
// generations, correlations, nanosecond instants) and writes a Buffer as
// `{ type: 'Buffer', data: [...] }`; these write a bigint as its decimal
// string and a Buffer or Uint8Array (payloads, frames, tokens) as base64.
// Nothing global is patched (BigInt.prototype stays as it is).

/** Base64 of a Buffer or any Uint8Array (a structured clone's bytes). */
function base64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * A replacer for `JSON.stringify(value, zlink.jsonReplacer, indent)`: bigints as decimal
 * strings, Buffers and Uint8Arrays as base64 strings, everything else as JSON writes it.
 */
function jsonReplacer(key, value) {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return base64(value);
  // JSON.stringify calls a Buffer's own toJSON before the replacer (`value`
  // is then { type, data }): the holder still has the Buffer.
  if (this !== null && typeof this === 'object' && value !== null && typeof value === 'object') {
    const raw = this[key];
    if (raw instanceof Uint8Array) return base64(raw);
  }
  return value;
}

/**
 * `value` as plain JSON data (what `JSON.parse(JSON.stringify(value, jsonReplacer))` gives):
 * bigints as decimal strings, Buffers and Uint8Arrays as base64 strings. `undefined` (or a
 * function) gives `undefined`.
 */
function toJSON(value) {
  const text = JSON.stringify(value, jsonReplacer);
  return text === undefined ? undefined : JSON.parse(text);
}

module.exports = { jsonReplacer, toJSON };
