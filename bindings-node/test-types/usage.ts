// Type-checked, never run (scripts/test.sh: tsc --noEmit --strict; kept out
// of test/ so no test runner picks it up): the public types read as a user
// writes them.
import * as z from '../lib/index';

async function usage(rt: z.Runtime): Promise<void> {
  // stats() is typed counter by counter.
  const stats: z.Stats = rt.stats();
  const relays: number = rt.stats().follow.relays;
  const reads: number = stats.store_reads + stats.tables.pending_requests + stats.requests.undecodable_answered;
  // @ts-expect-error: no such counter
  rt.stats().follow.relayz;
  // @ts-expect-error: a group is not a number
  const wrong: number = stats.resolutions;

  // Abort signals on send and request; AbortError is a ZlinkError with code 'Aborted'.
  const controller = new AbortController();
  try {
    await rt.request('actor', 'a', 'x', { timeoutMs: 1000, signal: controller.signal });
    await rt.send('actor', 'a', Buffer.from('x'), { signal: AbortSignal.timeout(50) });
  } catch (e) {
    if (e instanceof z.AbortError) {
      const code: 'Aborted' = e.code;
      const base: z.ZlinkError = e;
      void code; void base;
    }
  }

  // JSON of results: bigints and bytes become strings.
  const route = await rt.resolve('actor', 'a');
  const json = z.toJSON(route);
  if (json.kind === 'ReadyRoute') {
    const node: string = json.node;
    const fence: string = json.fence.storeVersion;
    void node; void fence;
  }
  const text: string = JSON.stringify(rt.identity(), z.jsonReplacer);

  // A copied Operation is still one.
  const d = await rt.onFrame(1n, Buffer.alloc(0));
  if (d.kind === 'Deliver') rt.reply(structuredClone(d.operation), 'pong');

  // Partial config updates; a detached method.
  rt.updateConfig({ routeCacheMaxAge: 1000 });
  const { lookupCached } = rt;
  lookupCached('actor', 'a');

  void relays; void reads; void wrong; void text;
}

void usage;
