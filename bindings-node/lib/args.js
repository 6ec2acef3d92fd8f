'use strict';
// Reads JavaScript arguments into what the native side takes, and refuses a
// wrong one with an InputError whose `code` names the problem, before it
// reaches the addon (where it would be a bare TypeError, a RangeError from
// BigInt(), or a silent truncation). The core's own rules (an ID's length,
// a zero deadline, ...) stay in the core: this only checks JavaScript types
// and ranges.

const { InputError } = require('./errors.js');

const KINDS = { spot: 1, actor: 2 };
const MAX_U64 = (1n << 64n) - 1n;

function show(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** 'spot' | 'actor' as its code. */
function kind(value) {
  const code = Object.hasOwn(KINDS, value) ? KINDS[value] : undefined;
  if (code === undefined) {
    throw new InputError(`kind must be "spot" or "actor", got ${show(value)}`, 'UnknownObjectKind');
  }
  return code;
}

/**
 * A string the core reads as UTF-8. A lone surrogate has no UTF-8 form (the
 * addon would read it as U+FFFD, so two different strings would name one
 * object): refused.
 */
function text(value, what = 'id') {
  if (typeof value !== 'string') {
    throw new InputError(`${what} must be a string, got ${show(value)}`, 'NotAString');
  }
  if (!value.isWellFormed()) {
    throw new InputError(`${what} holds a lone surrogate (not valid Unicode)`, 'InvalidUtf8');
  }
  return value;
}

/** A bigint (or a safe integer number) in 0..2^64. */
function u64(value, what) {
  let v;
  if (typeof value === 'bigint') {
    v = value;
  } else if (Number.isSafeInteger(value)) {
    v = BigInt(value);
  } else {
    throw new InputError(`${what} must be a bigint or a safe integer, got ${show(value)}`, 'NotAnInteger');
  }
  if (v < 0n || v > MAX_U64) throw new InputError(`${what} must be in 0..2^64, got ${v}`, 'OutOfRange');
  return v;
}

/** An integer number in 0..=max. */
function count(value, what, max) {
  if (!Number.isInteger(value)) {
    throw new InputError(`${what} must be an integer, got ${show(value)}`, 'NotAnInteger');
  }
  if (value < 0 || value > max) throw new InputError(`${what} must be in 0..=${max}, got ${value}`, 'OutOfRange');
  return value;
}

/** Optional whole milliseconds (or bytes): null when not given. */
function optionalCount(value, what) {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && value < 0) {
    throw new InputError(`${what} must be >= 0, got ${value}`, 'Negative');
  }
  return count(value, what, Number.MAX_SAFE_INTEGER);
}

/** A payload: Buffer, Uint8Array or string (UTF-8). */
function bytes(value, what = 'a payload') {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'string') return Buffer.from(text(value, what), 'utf8');
  throw new InputError(`${what} must be a Buffer, a Uint8Array or a string, got ${show(value)}`, 'NotBytes');
}

/**
 * A delivered Operation's frame (what the runtime gave the host): a Buffer,
 * or the Uint8Array a structured clone of the Operation holds.
 */
function frameOf(operation) {
  if (operation === null || typeof operation !== 'object' || !(operation.frame instanceof Uint8Array)) {
    throw new InputError('expected a delivered Operation (from a Deliver decision)', 'NotADelivery');
  }
  return bytes(operation.frame);
}

/**
 * An object given as options; undefined or null is `{}`. With `known` (the
 * option names), a key not among them is an InputError 'UnknownOption'
 * naming it and the known ones: a misspelt option is never ignored.
 */
function options(value, what, known) {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object') throw new InputError(`${what} must be an object, got ${show(value)}`, 'NotAnObject');
  if (known !== undefined) {
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) throw unknownOption(what, key, known);
    }
  }
  return value;
}

/** The InputError for option `key` of `what`, not one of `known`. */
function unknownOption(what, key, known) {
  const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
  const hint = near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`;
  return new InputError(`unknown option ${JSON.stringify(key)} in ${what}${hint}; the known ones are ${known.join(', ')}`,
    'UnknownOption');
}

/** A node on the wire: `{ mesh, rid, generation }`. */
function node(value, what = 'node') {
  const n = options(value, what);
  return { mesh: text(n.mesh, `${what}.mesh`), rid: u64(n.rid, `${what}.rid`), generation: u64(n.generation, `${what}.generation`) };
}

/** An instance of one of `classes` (a store, a clock), or null when not given. */
function instance(value, classes, what, code) {
  if (value === undefined || value === null) return null;
  if (!classes.some((c) => value instanceof c)) {
    throw new InputError(`${what} must be a ${classes.map((c) => c.name).join(' or a ')}, got ${show(value)}`, code);
  }
  return value.native;
}

module.exports = { kind, text, u64, count, optionalCount, bytes, frameOf, options, unknownOption, node, instance };
