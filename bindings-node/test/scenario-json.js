'use strict';
// Reading a scenario file's values (testdata/scenarios/README.md), and the
// checks every step shares: a missing required field is a failure of the step
// that needs it, never a default. A port of the JVM runner's ScenarioJson
// (and the Python runner's helpers).
//
// Not a test file: the scenario runner is test/scenarios.test.js.

const z = require('..');

/** A step did not give what the file says; the runner prefixes the step, the scenario, "node". */
class ScenarioFailure extends Error {
  constructor(why, cause) {
    super(why, cause === undefined ? undefined : { cause });
    this.name = 'ScenarioFailure';
  }
}

function fail(why, cause) {
  return new ScenarioFailure(why, cause);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value at `key`, or null when it is absent or JSON null. */
function value(v, key) {
  const e = v[key];
  return e === undefined || e === null ? null : e;
}

/** The object at `key`, or null when absent. */
function object(v, key) {
  const e = value(v, key);
  if (e === null) return null;
  if (!isObject(e)) throw fail(`'${key}' is not an object`);
  return e;
}

/** The object `e`, which a list of expectations holds. */
function objectOf(e) {
  if (!isObject(e)) throw fail(`expected an object, got ${show(e)}`);
  return e;
}

/** The array at `key`; empty when absent (an absent list expects nothing). */
function array(v, key) {
  const e = value(v, key);
  if (e === null) return [];
  if (!Array.isArray(e)) throw fail(`'${key}' is not a list`);
  return e;
}

/** The text at `key`, or null when absent or not text. */
function text(v, key) {
  const e = value(v, key);
  return typeof e === 'string' ? e : null;
}

/** The boolean at `key`, or null when absent or not a boolean. */
function bool(v, key) {
  const e = value(v, key);
  return typeof e === 'boolean' ? e : null;
}

/** `e` as a non-negative integer, or null when it is not one. */
function integerOf(e) {
  return typeof e === 'number' && Number.isSafeInteger(e) && e >= 0 ? e : null;
}

/** The non-negative integer at `key`, or null when absent or not one. */
function integer(v, key) {
  return integerOf(value(v, key));
}

/** The required text at `key`. */
function strOf(v, key) {
  const s = text(v, key);
  if (s === null) throw fail(`missing '${key}'`);
  return s;
}

/** The required non-negative integer at `key`. */
function intOf(v, key) {
  const n = integer(v, key);
  if (n === null) throw fail(`missing '${key}'`);
  return n;
}

/** The object kind at "kind": "actor" (the default) or "spot" (the Node API's own names). */
function kindOf(v) {
  const k = value(v, 'kind') === null ? 'actor' : text(v, 'kind');
  if (k === 'actor' || k === 'spot') return k;
  throw fail(`unknown kind ${show(value(v, 'kind'))}`);
}

/** A payload or state: the UTF-8 of the text at `key`, empty when absent. */
function payloadOf(v, key) {
  const s = text(v, key);
  return s === null ? Buffer.alloc(0) : Buffer.from(s, 'utf8');
}

/** A value as the failure messages show it (as the other runners do: text quoted, absent None). */
function repr(x) {
  if (x === null || x === undefined) return 'None';
  return typeof x === 'string' ? `'${x}'` : show(x);
}

/** Any value, readably (bigints without their `n`, Buffers as text). */
function show(x) {
  if (x === undefined) return 'undefined';
  return JSON.stringify(x, (_, v) => {
    if (typeof v === 'bigint') return Number(v);
    if (v !== null && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data)) {
      return Buffer.from(v.data).toString('utf8');
    }
    return v;
  });
}

/** When `want` names text at `key`, `got` must be that text. */
function expectField(want, key, got) {
  const w = text(want, key);
  if (w !== null && w !== got) throw fail(`${key} is ${repr(got)}, expected ${repr(w)}`);
}

/**
 * A call's result against its `expect`: the tag, an Unavailable reason, and the node a route
 * names ("node" for resolve, "to" for a submitted frame).
 */
function expectTag(want, tag, node, reason) {
  expectField(want, 'tag', tag);
  expectField(want, 'reason', reason);
  for (const key of ['node', 'to']) {
    const w = integer(want, key);
    if (w !== null && w !== node) throw fail(`${key} is ${repr(node)}, expected ${w}`);
  }
}

/** The config keys a scenario may set (README); any other is a mistake in the file. */
const CONFIG_KEYS = ['route_cache_max_age_ms', 'message_follow_duration_ms', 'max_follow_hops',
  'session_relocation_seal_timeout_ms', 'session_bind_timeout_ms', 'owner_lease_duration_ms',
  'store_timeout_ms', 'store_attempts', 'max_object_id_bytes', 'max_message_bytes',
  'relocation_timeout_ms', 'max_relocation_state_bytes'];

/** A scenario config key's name in the Node API: camelCase, without "_ms" (both are ms). */
function configField(key) {
  return key.replace(/_ms$/, '').replace(/_(\w)/g, (_, c) => c.toUpperCase());
}

/**
 * The Node config fields a scenario's `config` describes (the defaults with each given key
 * set). Checked here with `z.routingConfig`, which throws the ConfigError of a broken rule.
 */
function config(v) {
  const fields = {};
  if (v === null) {
    z.routingConfig(fields);
    return fields;
  }
  const unknown = Object.keys(v).filter((k) => !CONFIG_KEYS.includes(k)).sort();
  if (unknown.length > 0) throw fail(`unknown config keys ${show(unknown)}`);
  for (const key of Object.keys(v)) {
    const n = integer(v, key);
    if (n === null) throw fail(`config ${key} is ${show(v[key])}, not a non-negative integer`);
    fields[configField(key)] = n;
  }
  z.routingConfig(fields);
  return fields;
}

/**
 * The README's name of a refused call: the error's `code`, except that an authority write the
 * store refused (AlreadyExists, WrongState, ...) is `Write`, as in the Rust, Python and JVM
 * runners. An ownership mistake keeps its own name.
 */
function errorName(e) {
  if (e instanceof z.LifecycleError && e.code !== 'NotOwned' && e.code !== 'NotACommittedMove') {
    return 'Write';
  }
  return e.code;
}

/** An error as the failure messages show it: its class, code and message. */
function described(e) {
  if (!(e instanceof Error)) return `thrown ${show(e)}`;
  const code = e instanceof z.ZlinkError ? ` ${e.code}` : '';
  return `${e.constructor.name}${code}: ${e.message}`;
}

module.exports = {
  ScenarioFailure, fail, value, object, objectOf, array, text, bool, integer, integerOf, strOf,
  intOf, kindOf, payloadOf, repr, show, expectField, expectTag, config, errorName, described,
};
