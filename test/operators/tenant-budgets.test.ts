// What one tenant can use of what every tenant shares: the Events the hook server writes (lib/events.ts, a share per
// namespace of the writes under way and of the rate), and the log, where an API server's words arrive as one bounded
// line (lib/kube.ts); and the etcd client's memory of the endpoints it dialled (hooks/etcdcommon/etcd.ts).
import { createServer } from 'node:http';
import t from 'tap';
import {
  eventBudgetFor,
  KubeEventRecorder,
  MAX_EVENTS_IN_FLIGHT,
  NAMESPACE_EVENTS,
  type EventSpec,
} from '../../lib/events.js';
import { boundedText, HttpKubeApi, KubeError, MAX_ERROR_TEXT, type KubeApi, type KubeEvent } from '../../lib/kube.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { HttpEtcdClient, MAX_KNOWN_PREFIXES, MAX_KNOWN_PREFIXES_PER_NAMESPACE } from '../../hooks/etcdcommon/etcd.js';
import type { NamespaceShares } from '../../lib/shares.js';

/** An API server whose event writes in `hanging` namespaces never finish; the others are written at once. */
class Kube implements KubeApi {
  readonly written: KubeEvent[] = [];
  constructor(private readonly hanging: Set<string> = new Set()) {}
  async get() {
    return undefined;
  }
  async addEphemeralContainers() {}
  createEvent(event: KubeEvent): Promise<'created'> {
    if (this.hanging.has(event.namespace)) return new Promise(() => undefined);
    this.written.push(event);
    return Promise.resolve('created');
  }
}

const parent = (namespace: string, name: string): ParentObject => ({
  apiVersion: 'x.example/v1',
  kind: 'Thing',
  metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
  spec: {},
});
const warning: EventSpec = { type: 'Warning', reason: 'Down', action: 'Reconcile', note: 'down' };
const sink = () => {
  const lines: string[] = [];
  return {
    lines,
    // Each line as it would be written: its message and its fields.
    log: {
      info: (o: unknown, m: string) => lines.push(`${m} ${JSON.stringify(o)}`),
      warn: (o: unknown, m: string) => lines.push(`${m} ${JSON.stringify(o)}`),
    },
  };
};

t.test("tenant A's hanging event writes take its own share, never tenant B's", async (t) => {
  const kube = new Kube(new Set(['team-a']));
  let now = 0;
  const recorder = new KubeEventRecorder(
    () => kube,
    () => now,
  );
  const { lines, log } = sink();
  // Tenant A: a hundred failing parents, each an event the API server never finishes writing. Before, the first 64 took
  // every write the server had, and every other namespace's events were dropped.
  for (let i = 0; i < 100; i++) void recorder.record(parent('team-a', `a${i}`), [warning], FIXED_NOW, log);
  await new Promise((r) => setImmediate(r));
  t.ok(NAMESPACE_EVENTS.inFlight < MAX_EVENTS_IN_FLIGHT);
  t.equal(
    lines.filter((l) => l.includes(`${NAMESPACE_EVENTS.inFlight} events of namespace team-a are being written already`))
      .length,
    100 - NAMESPACE_EVENTS.inFlight,
    'past its share, A’s events are dropped and said',
  );
  // Tenant B is written.
  await recorder.record(parent('team-b', 'b'), [warning], FIXED_NOW, log);
  t.same(
    kube.written.map((e) => `${e.namespace}/${e.regarding.name}`),
    ['team-b/b'],
  );
  now += 60_000;
  await recorder.record(parent('team-c', 'c'), [warning], FIXED_NOW, log);
  t.equal(kube.written.length, 2, 'and so is any other');
});

t.test('a namespace writes a burst of events, then one a second; the others are not held back', async (t) => {
  const kube = new Kube();
  let now = 0;
  const recorder = new KubeEventRecorder(
    () => kube,
    () => now,
  );
  const { lines, log } = sink();
  const ofA = () => kube.written.filter((e) => e.namespace === 'team-a').length;
  for (let i = 0; i < 100; i++) await recorder.record(parent('team-a', `a${i}`), [warning], FIXED_NOW, log);
  t.equal(ofA(), NAMESPACE_EVENTS.burst, 'a burst');
  t.ok(
    lines.some((l) => l.includes(`namespace team-a wrote its ${NAMESPACE_EVENTS.burst} events, and gets 1 a second`)),
  );
  await recorder.record(parent('team-b', 'b'), [warning], FIXED_NOW, log);
  t.equal(kube.written.length, NAMESPACE_EVENTS.burst + 1, 'B is written');
  now += 5_000;
  for (let i = 0; i < 100; i++) await recorder.record(parent('team-a', `later${i}`), [warning], FIXED_NOW, log);
  t.equal(ofA(), NAMESPACE_EVENTS.burst + 5, 'five seconds later, five more');
  now += 3_600_000;
  for (let i = 0; i < 100; i++) await recorder.record(parent('team-a', `much-later${i}`), [warning], FIXED_NOW, log);
  t.equal(ofA(), 2 * NAMESPACE_EVENTS.burst + 5, 'never more than a burst at once');
});

t.test('the namespaces remembered are bounded; a forgotten one starts afresh', async (t) => {
  const kube = new Kube();
  const recorder = new KubeEventRecorder(
    () => kube,
    () => 0,
  );
  for (let i = 0; i < NAMESPACE_EVENTS.burst; i++)
    await recorder.record(parent('first', `f${i}`), [warning], FIXED_NOW);
  await recorder.record(parent('first', 'over'), [warning], FIXED_NOW);
  t.equal(kube.written.length, NAMESPACE_EVENTS.burst, 'first is past its burst');
  for (let i = 0; i < 5000; i++) await recorder.record(parent(`ns-${i}`, 'x'), [warning], FIXED_NOW);
  t.ok(eventBudgetFor(kube).namespaces.size <= 4096);
  await recorder.record(parent('first', 'again'), [warning], FIXED_NOW);
  t.equal(kube.written.at(-1)?.regarding.name, 'again');
});

t.test("the API server's words are one bounded line: in errors, and so in every log line that says them", async (t) => {
  t.equal(boundedText('a\nb\r\n\tc  d', 100), 'a b c d');
  t.equal(boundedText('\u001b[31mred\u001b[0m\u2028x\u0085y', 100), '[31mred [0m x y');
  t.equal(boundedText('x'.repeat(10), 5), 'xx...');
  t.equal(boundedText('x'.repeat(5), 5), 'xxxxx');
  t.equal(boundedText({ an: 'object' }, 100), '[object Object]');
  // An API server (or anything answering in its place) that answers a refusal with a megabyte of lines.
  const said = `forbidden\n${'\u001b[2J{"level":60,"msg":"forged"}\n'.repeat(30_000)}`;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(req.url?.includes('plain') ? 500 : 403, { 'content-type': 'application/json' });
    res.end(req.url?.includes('plain') ? said : JSON.stringify({ kind: 'Status', reason: 'Forbidden', message: said }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const api = new HttpKubeApi(3000, { server: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
  for (const name of ['p', 'plain']) {
    const err = (await api.get('v1', 'pods', 'ns', name).catch((e: unknown) => e)) as KubeError;
    t.ok(err instanceof KubeError, name);
    t.ok(err.message.length < 100 + MAX_ERROR_TEXT, `${name}: ${err.message.length} characters`);
    t.notMatch(err.message, /\p{Cc}/u, `${name}: one line, no terminal escapes`);
    t.match(err.message, /^GET \/api\/v1\/namespaces\/ns\/pods\/\w+: \d{3} forbidden /);
  }
  // Through the Event recorder's log.
  const recorder = new KubeEventRecorder(() => api);
  const { lines, log } = sink();
  await recorder.record(parent('team-a', 'x'), [warning], FIXED_NOW, log);
  const failed = lines.find((l) => l.includes('could not record the event'));
  t.ok(failed, 'the failure is logged');
  t.ok(failed!.length < 500, `in ${failed!.length} characters`);
});

t.test('the etcd client remembers the gateway prefix of at most MAX_KNOWN_PREFIXES endpoints', async (t) => {
  // Every member of every cluster, ever, is an endpoint, and the client lives as long as the server: at most
  // MAX_KNOWN_PREFIXES over all namespaces, and at most MAX_KNOWN_PREFIXES_PER_NAMESPACE of each (the namespace of
  // the sync's view that dials it), the least recently used forgotten first.
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ members: [{ ID: '1', name: 'a', peerURLs: [], clientURLs: [] }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  const client = new HttpEtcdClient({ dnsLookup: async () => ({ address: '127.0.0.1', family: 4 }) });
  const view = (tenant: string) =>
    client.scoped({ signal: new AbortController().signal, allows: () => true, lookupName: (h) => h, tenant });
  const known = () => (client as unknown as { prefixByEndpoint: NamespaceShares<string> }).prefixByEndpoint;
  const url = (ns: number, i: number) => `http://m${i}.t${ns}.example:${port}`;
  // Five namespaces, each dialling more endpoints than its share: more than the bound over all.
  const namespaces = 5;
  const each = MAX_KNOWN_PREFIXES_PER_NAMESPACE + 10;
  t.ok(namespaces * MAX_KNOWN_PREFIXES_PER_NAMESPACE > MAX_KNOWN_PREFIXES, 'more than the bound over all');
  for (let ns = 0; ns < namespaces; ns++) for (let i = 0; i < each; i++) await view(`t${ns}`).memberList([url(ns, i)]);
  t.equal(known().size, MAX_KNOWN_PREFIXES, 'at most MAX_KNOWN_PREFIXES over all');
  for (let ns = 0; ns < namespaces; ns++)
    t.ok(known().held(`t${ns}`) <= MAX_KNOWN_PREFIXES_PER_NAMESPACE, `namespace t${ns} within its share`);
  t.notOk(known().has('t0', url(0, 0)), 'the least recently used is forgotten');
  t.ok(known().has('t4', url(4, each - 1)));
  // One used again is kept.
  await view('t4').memberList([url(4, 200)]);
  for (let i = 0; i < 10; i++) await view('t5').memberList([url(5, i)]);
  t.ok(known().has('t4', url(4, 200)));
});
