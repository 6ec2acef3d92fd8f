'use strict';
// The Node runner of the language-neutral scenario suite
// (testdata/scenarios/*.json, format in its README): plays every file over
// the Node API as a small host would (test/scenario-host.js,
// scenario-steps.js, scenario-expectations.js), with the semantics of the
// Rust reference runner (core/tests/scenarios.rs), the Python one and the JVM
// one, and fails naming the language, the scenario and the step that did not
// give what the file says. One node:test test per scenario, named after it.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const z = require('..');
const J = require('./scenario-json.js');
const { ScenarioHost } = require('./scenario-host.js');
const { runStep } = require('./scenario-steps.js');

const LANGUAGE = 'node';

/**
 * testdata/scenarios: under $ZLINK_TESTDATA if set, else the first testdata/scenarios above
 * this directory (the repository's).
 */
function scenarios() {
  if (process.env.ZLINK_TESTDATA) return path.join(process.env.ZLINK_TESTDATA, 'scenarios');
  for (let p = __dirname; ; p = path.dirname(p)) {
    const dir = path.join(p, 'testdata', 'scenarios');
    if (fs.existsSync(dir) && fs.statSync(dir).isDirectory()) return dir;
    if (path.dirname(p) === p) throw new Error(`no testdata/scenarios above ${__dirname}`);
  }
}

const DIR = scenarios();
const FILES = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

/**
 * A scenario whose nodes must not start: the config is refused with the rule's name
 * (`z.routingConfig` checks it; a runtime built with it is tried too should it pass). No
 * expected error: the config must be accepted.
 */
function build(step) {
  const expect = J.object(step, 'expect');
  const want = expect === null ? null : J.text(expect, 'error');
  let got = null;
  let detail = '';
  let cause;
  try {
    const config = J.config(J.object(step, 'config'));
    const clock = new z.ManualClock();
    const store = new z.MemoryStore({ clock });
    new z.Runtime({ mesh: 'scenario', rid: 1, generation: 1, lease: 1 }, { store, clock, config }).close();
  } catch (e) {
    if (!(e instanceof z.ZlinkError)) throw e;
    got = e.code;
    detail = ` (${e.constructor.name}: ${e.message})`;
    cause = e;
  }
  if (got !== want) throw J.fail(`config error ${J.repr(got)}${detail}, expected ${J.repr(want)}`, cause);
}

/** Plays one scenario; the failure names the step. */
async function play(scenario) {
  if (J.value(scenario, 'steps') === null) throw J.fail('no steps');
  const steps = J.array(scenario, 'steps');
  // A scenario whose nodes must not start: its first step is `build`, alone.
  if (steps.length > 0 && J.text(J.objectOf(steps[0]), 'do') === 'build') {
    try {
      build(steps[0]);
    } catch (e) {
      throw J.fail(`step 1 (build): ${e instanceof J.ScenarioFailure ? e.message : J.described(e)}`, e);
    }
    return;
  }
  const host = new ScenarioHost(scenario);
  try {
    for (let i = 0; i < steps.length; i++) {
      const step = J.objectOf(steps[i]);
      const where = `step ${i + 1} (${J.text(step, 'do') ?? '?'}): `;
      try {
        await runStep(host, step);
      } catch (e) {
        // A ScenarioFailure says why; anything else is a call the host could not make.
        const why = e instanceof J.ScenarioFailure ? e.message : J.described(e);
        throw J.fail(where + why, e instanceof J.ScenarioFailure ? e.cause : e);
      }
    }
  } finally {
    host.close();
  }
}

/** Reads and plays one file; a failure names the language, the scenario and the step. */
async function scenario(name, file) {
  let parsed;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    assert.fail(`${LANGUAGE}: ${name}: not JSON: ${e.message}`);
  }
  if (parsed?.name !== name) assert.fail(`${LANGUAGE}: ${name}: its "name" is not its file name`);
  try {
    await play(parsed);
  } catch (e) {
    // Outside any step (a ScenarioFailure without a step): the nodes could not start.
    const why = e instanceof J.ScenarioFailure ? e.message : J.described(e);
    const err = new assert.AssertionError({ message: `${LANGUAGE}: ${name}: ${why}` });
    if (e.cause !== undefined) err.cause = e.cause;
    throw err;
  }
}

test('there are at least 40 scenarios', () => {
  assert.ok(FILES.length >= 40, `${LANGUAGE}: only ${FILES.length} scenarios in ${DIR}`);
});

for (const file of FILES) {
  const name = file.slice(0, -'.json'.length);
  test(name, () => scenario(name, path.join(DIR, file)));
}
