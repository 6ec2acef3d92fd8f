'use strict';
// The errors zlink throws: one Error subclass per family, each with a
// stable `code` (the cause's name, the same in every language: e.g.
// 'EmptyObjectId', 'CacheOutlivesFollow', 'Closed'). Routing outcomes
// (Missing, Unavailable, ...) are values, never errors. An aborted
// `signal` rejects with an AbortError (code 'Aborted', name 'AbortError',
// the signal's reason as its `cause`).

const native = require('./native.js');

/**
 * The classes: this thread's first copy of this module makes them and
 * registers their factory with the addon; a later copy (a cleared require
 * cache, a test runner's module isolation) takes the same ones, so an
 * error the addon throws is an instance of the classes every copy exports.
 */
function classes() {
  const registered = native.registeredErrorFactory();
  if (registered?.classes !== undefined) return registered.classes;

  class ZlinkError extends Error {
    constructor(message, code, options) {
      super(message, options);
      this.name = this.constructor.name;
      this.code = code;
    }
  }

  const families = {};
  for (const name of ['InputError', 'ConfigError', 'StoreError', 'LifecycleError', 'WireError',
    'ReplyRouteError', 'SessionError', 'RelocationError', 'ClosedError', 'ForkedRuntimeError', 'AbortError']) {
    families[name] = { [name]: class extends ZlinkError {} }[name];
  }

  /** Builds the error of `family` (called by the native side). */
  function make(message, code, family) {
    const Family = families[family] ?? ZlinkError;
    return new Family(message, code);
  }

  make.classes = { ZlinkError, ...families, make };
  native.setErrorFactory(make);
  return make.classes;
}

module.exports = classes();
