'use strict';
// The addon, through napi's generated loader (../index.js): it tries the
// file next to it first (zlink.linux-x64-gnu.node, where the in-tree build
// puts it), then the platform package zlink-linux-x64-gnu (an optional
// dependency of the zlink package `make dist` packs).
// When neither loads, napi's own message blames an npm bug and names no
// package; this one says which package carries the addon. The loader's
// errors stay in `cause`.

const PLATFORM_PACKAGE = 'zlink-linux-x64-gnu';

function load() {
  try {
    return require('../index.js');
  } catch (e) {
    const message = e && typeof e.message === 'string' ? e.message : '';
    if (!message.startsWith('Cannot find native binding') && message !== 'Failed to load native binding') throw e;
    throw notLoaded(e);
  }
}

function notLoaded(cause) {
  const { version } = require('../package.json');
  const here = platform();
  let text;
  if (here !== 'linux-x64-gnu') {
    text = `zlink: no native addon for ${here}: zlink is built for linux-x64-gnu only ` +
      `(the platform package ${PLATFORM_PACKAGE})`;
  } else if (installed()) {
    text = `zlink: the platform package ${PLATFORM_PACKAGE} is installed but its addon did not load` +
      ` (${firstReason(cause)})`;
  } else {
    text = `zlink: the native addon is missing: install the platform package ${PLATFORM_PACKAGE}@${version} ` +
      `(${PLATFORM_PACKAGE}-${version}.tgz) with zlink, and do not omit optional dependencies`;
  }
  const error = new Error(text);
  error.cause = cause;
  return error;
}

function installed() {
  try {
    require.resolve(`${PLATFORM_PACKAGE}/package.json`);
    return true;
  } catch {
    return false;
  }
}

function platform() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux') return base;
  let glibc = true;
  try {
    const report = process.report && process.report.getReport();
    glibc = Boolean(report && report.header && report.header.glibcVersionRuntime);
  } catch {
    // unknown: take glibc
  }
  return `${base}-${glibc ? 'gnu' : 'musl'}`;
}

// Why the installed package did not load: the first of the loader's errors
// (napi chains them, the last one outermost) that is not a file not found.
function firstReason(error) {
  const messages = [];
  for (let e = error && error.cause; e; e = e.cause) messages.unshift(String(e.message));
  const reason = messages.find((m) => !m.startsWith('Cannot find module'));
  return reason ? reason.split('\n')[0] : 'no reason given';
}

module.exports = load();
