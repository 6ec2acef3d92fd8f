'use strict';
// The errors zlink throws: one Error subclass per family, each with a
// stable `code` (the cause's name, the same in every language: e.g.
// 'EmptyObjectId', 'CacheOutlivesFollow', 'Closed'). Routing outcomes
// (Missing, Unavailable, ...) are values, never errors.

class ZlinkError extends Error {
  constructor(message, code) {
    super(message);
    this.name = this.constructor.name;
    this.code = code;
  }
}

const families = {};
for (const name of ['InputError', 'ConfigError', 'StoreError', 'LifecycleError', 'WireError',
  'ReplyRouteError', 'SessionError', 'RelocationError', 'ClosedError', 'ForkedRuntimeError']) {
  families[name] = { [name]: class extends ZlinkError {} }[name];
}

/** Builds the error of `family` (called by the native side). */
function make(message, code, family) {
  const Family = families[family] ?? ZlinkError;
  return new Family(message, code);
}

module.exports = { ZlinkError, ...families, make };
