// The server's budget of request bodies in hand (lib/body-budget.ts): however many large hook requests arrive at once,
// no more of their bytes than the budget are read, parsed and answered together; the others wait their turn (in
// arrival order) and are answered as their turns come, or, past half the hook's deadline, 429 with Retry-After, which
// Metacontroller honours. Parsed JSON costs up to 21 times its size: five bodies of empty objects at the 8 MiB body
// limit at once took the server to 488 MiB of the Deployment's 512.
import t from 'tap';
import { buildApp, OVERLOADED, RETRY_AFTER_SECONDS } from '../../lib/app.js';
import {
  BodyBudget,
  DEFAULT_BODY_BUDGET,
  GIVE_WAY_SHARE,
  HEADS_ROOM,
  NAMESPACE_HEAD_BYTES,
  reserveOf,
  serverBudget,
} from '../../lib/body-budget.js';
import { namespaceOfHead } from '../../lib/body-head.js';
import { ConfigError, settingsFromEnv } from '../../lib/config.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { greeting, type Translator } from '../toy/index.js';
import { PassThrough } from 'node:stream';

const TOKEN = 'budget-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const MIB = 1024 * 1024;

/** A Greeting's sync request of about `bytes` bytes: its ConfigMap child's data padded with many small fields. */
function request(name: string, bytes: number): string {
  const data: Record<string, string> = { message: 'kept' };
  for (let i = 0, size = 0; size < bytes - 1024; i++) {
    data[`k${i}`] = 'x'.repeat(40);
    size += `"k${i}":"${'x'.repeat(40)}",`.length;
  }
  const body: CompositeSyncRequest = {
    controller: {},
    parent: {
      apiVersion: 'toy.metaops.dev/v1',
      kind: 'Greeting',
      metadata: { name, namespace: 'toys', uid: `u-${name}`, generation: 1 },
      spec: { message: 'hello' },
    } as never,
    children: {
      'ConfigMap.v1': { [name]: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'toys' }, data } },
    },
  };
  return JSON.stringify(body);
}

/** A translator that holds every call until the test lets it go, counting the calls in hand. */
function heldTranslator() {
  const held: Array<() => void> = [];
  let arrived: (() => void) | undefined;
  const state = { inHand: 0, most: 0, calls: 0 };
  const translator: Translator = {
    translate: async (text) => {
      state.calls++;
      state.inHand++;
      state.most = Math.max(state.most, state.inHand);
      await new Promise<void>((resolve) => {
        held.push(resolve);
        arrived?.();
      });
      state.inHand--;
      return text;
    },
  };
  /** The next held call (waits until one is held). */
  const next = async (): Promise<() => void> => {
    while (held.length === 0) await new Promise<void>((r) => (arrived = r));
    return held.shift()!;
  };
  return { translator, state, next };
}

function app(translator: Translator, options: { bodyBudget?: number | BodyBudget; hookDeadlineMs?: number } = {}) {
  const a = buildApp({
    operators: [greeting],
    auth: { bearer: TOKEN },
    clients: { greeting: { translator: () => translator } },
    env: { TOY_LANGUAGE: 'nb' },
    ...options,
  });
  t.teardown(() => a.close());
  return a;
}

const post = (a: ReturnType<typeof app>, payload: string) =>
  a.inject({
    method: 'POST',
    url: '/hooks/greeting/sync',
    payload,
    headers: { ...auth, 'content-type': 'application/json' },
  });

t.test('five 1 MiB requests at once with a 2.5 MiB budget: two in hand, three waiting, all answered', async (t) => {
  const { translator, state, next } = heldTranslator();
  const budget = new BodyBudget(2.5 * MIB);
  const a = app(translator, { bodyBudget: budget, hookDeadlineMs: 9500 });
  const answers = Promise.all([0, 1, 2, 3, 4].map((i) => post(a, request(`g${i}`, MIB))));
  // Every request either in its hook or waiting for its turn (without a budget, all five reach their hooks).
  while (state.inHand + budget.queued < 5) await new Promise((r) => setImmediate(r));
  t.equal(state.inHand, 2, 'two bodies of 1 MiB in hand');
  t.equal(budget.queued, 3, 'three wait, their bodies unread');
  // Each held call let go in turn: a waiting request is parsed and answered as a turn is given back.
  for (let i = 0; i < 5; i++) (await next())();
  const res = await answers;
  t.same(
    res.map((r) => r.statusCode),
    [200, 200, 200, 200, 200],
  );
  t.equal(state.calls, 5);
  t.equal(state.most, 2, 'never more than two in hand');
  t.ok(budget.peak <= budget.bytes, 'never more bytes in hand than the budget');
  t.equal(budget.used, 0, 'every turn given back');
});

t.test('small requests share the budget: ten of 100 KiB in hand at once', async (t) => {
  const { translator, state, next } = heldTranslator();
  const a = app(translator, { bodyBudget: 2 * MIB, hookDeadlineMs: 9500 });
  const answers = Promise.all(Array.from({ length: 10 }, (_, i) => post(a, request(`s${i}`, 100 * 1024))));
  const releases: Array<() => void> = [];
  for (let i = 0; i < 10; i++) releases.push(await next());
  t.equal(state.inHand, 10, 'all ten held at once');
  for (const r of releases) r();
  t.same(
    (await answers).map((r) => r.statusCode),
    Array(10).fill(200),
  );
});

t.test(
  'a request that gets no turn within half the deadline: 429 with Retry-After, its body never parsed',
  async (t) => {
    const { translator, state, next } = heldTranslator();
    const a = app(translator, { bodyBudget: 1.5 * MIB, hookDeadlineMs: 200 });
    const first = post(a, request('first', MIB));
    const release = await next();
    const second = await post(a, request('second', MIB));
    t.equal(second.statusCode, OVERLOADED);
    t.equal(second.headers['retry-after'], String(RETRY_AFTER_SECONDS));
    t.match(second.json().message, /as many request bytes as it has room for/);
    t.equal(state.calls, 1, 'the second never reached its hook');
    release();
    await first;
    // The first gave its turn back: the next one is answered.
    const third = post(a, request('third', MIB));
    (await next())();
    t.equal((await third).statusCode, 200);
  },
);

t.test('the budget: arrival order, at most the whole budget per request, its turn given back once', async (t) => {
  const b = new BodyBudget(100, 2);
  const r1 = await b.take(60, 1000);
  const order: string[] = [];
  const big = b.take(80, 1000).then((r) => (order.push('big'), r));
  const small = b.take(10, 1000).then((r) => (order.push('small'), r));
  // The small one fits, but waits behind the big one: a large body is not passed by small ones for ever.
  await t.rejects(b.take(1, 1000), /already wait/, 'a third waiter is refused at once');
  t.equal(b.used, 60);
  r1();
  r1();
  const rb = await big;
  const rs = await small;
  t.same(order, ['big', 'small']);
  t.equal(b.used, 90);
  rb();
  rs();
  t.equal(b.used, 0);
  t.equal(b.weigh(10_000), 100, 'a request larger than the budget takes all of it, and runs alone');
  const all = await b.take(10_000, 1000);
  const gone = new AbortController();
  const waiting = b.take(1, 1000, gone.signal);
  gone.abort();
  await t.rejects(waiting, /went away/);
  all();
  t.equal(b.used, 0);
  t.equal(b.peak, 100);
});

t.test('METAOPS_BODY_BUDGET: default one body at the limit, never below the body limit', async (t) => {
  t.equal(settingsFromEnv({}).bodyBudget, DEFAULT_BODY_BUDGET);
  t.equal(DEFAULT_BODY_BUDGET, 8 * MIB);
  t.equal(settingsFromEnv({ METAOPS_BODY_BUDGET: String(12 * MIB) }).bodyBudget, 12 * MIB);
  t.equal(settingsFromEnv({ METAOPS_BODY_LIMIT: String(32 * MIB) }).bodyBudget, 32 * MIB);
  t.throws(
    () => settingsFromEnv({ METAOPS_BODY_BUDGET: String(4 * MIB) }),
    ConfigError,
    'a budget below the body limit: a body at the limit could never be answered',
  );
  t.throws(() => settingsFromEnv({ METAOPS_BODY_BUDGET: '16MiB' }), ConfigError);
});

t.test('the reserve: a small request never waits behind a large one, within the reserve', async (t) => {
  // A budget of 100 with a reserve of 40: requests of at most 20 (half of it) may take from the reserve.
  const b = new BodyBudget(100, 8, 40);
  t.equal(b.small, 20);
  const large = await b.take(100, 1000);
  t.notOk(large.reserved, 'a request that fits the budget takes from the budget');
  const waitingLarge = b.take(60, 1000);
  const s1 = await b.take(10, 1000);
  t.ok(s1.reserved, 'a small request with no room in the budget takes from the reserve at once');
  const s2 = await b.take(10, 1000);
  const s3 = await b.take(10, 1000);
  const s4 = await b.take(10, 1000);
  t.equal(b.reserved, 40, 'the reserve full');
  t.equal(b.used, 140, 'the budget and its reserve in hand');
  const order: string[] = [];
  const s5 = b.take(5, 1000).then((r) => (order.push('s5'), r));
  const mid = b.take(21, 1000).then((r) => (order.push('mid'), r));
  const s6 = b.take(5, 1000).then((r) => (order.push('s6'), r));
  t.equal(b.queued, 4, 'a small request waits once the reserve is full; a larger one never takes from it');
  s1();
  await new Promise((r) => setImmediate(r));
  t.same(order, ['s5', 's6'], 'a turn of the reserve given back goes to the small requests waiting, in order');
  large();
  const l = await waitingLarge;
  await new Promise((r) => setImmediate(r));
  t.same(order, ['s5', 's6', 'mid'], 'the budget given back goes to the requests waiting for it, in arrival order');
  for (const r of [s2, s3, s4, l, await s5, await s6, await mid]) r();
  t.equal(b.used, 0, 'every turn given back');
  t.equal(b.peak, 140, 'never more in hand than the budget and its reserve');
});

t.test('the reserve: a namespace holds at most a quarter of it once its body is read (claim)', async (t) => {
  const b = new BodyBudget(100, 8, 40);
  t.equal(b.namespaceShare, 10);
  const large = await b.take(100, 1000);
  t.ok(b.claim(large, 'a'), 'a turn of the budget stays, whatever its namespace holds');
  const a1 = await b.take(6, 1000);
  t.ok(b.claim(a1, 'a'), "a namespace's first turn of the reserve stays");
  t.ok(b.claim(a1, 'a'), 'a turn claimed again stays (and counts once)');
  const a2 = await b.take(4, 1000);
  t.ok(b.claim(a2, 'a'), 'another within its share (6 + 4 of 10) stays');
  const a3 = await b.take(1, 1000);
  t.notOk(b.claim(a3, 'a'), 'one more past its share does not');
  a3();
  const c1 = await b.take(10, 1000);
  t.ok(b.claim(c1, 'b'), "another namespace's turn stays: the share is each namespace's own");
  a1();
  const a4 = await b.take(6, 1000);
  t.ok(b.claim(a4, 'a'), 'a turn given back is no longer counted to its namespace');
  const a5 = await b.take(8, 1000);
  t.notOk(b.claim(a5, 'a'), '4 + 6 + 8 is past the share');
  for (const r of [a2, a4, a5, c1, large]) r();
  t.equal(b.used, 0, 'every turn given back');
  const fresh = await b.take(10, 1000);
  t.ok(b.claim(fresh, 'a'), "a namespace that holds nothing may take one small request's turn, whatever its size");
  fresh();
});

t.test("the reserve: what one namespace may hold of it leaves room for another's request of half of it", async (t) => {
  const b = new BodyBudget(100, 8, 40);
  const large = await b.take(100, 1000);
  // A holds one request of half the reserve: its next is refused once read.
  const a1 = await b.take(20, 1000);
  t.ok(a1.reserved && b.claim(a1, 'a'), "A's request of half the reserve takes from it and stays");
  const a2 = await b.take(20, 1000);
  t.ok(a2.reserved, "A's next takes the rest of the reserve before its body is read");
  t.notOk(b.claim(a2, 'a'), "but once read it is past A's share");
  a2();
  const b1 = await b.take(20, 1000);
  t.ok(b1.reserved && b.claim(b1, 'b'), "B's request of half the reserve takes the rest and stays");
  b1();
  a1();
  // A holds several small ones, within its quarter: B's request of half the reserve still fits.
  const small = [await b.take(5, 1000), await b.take(5, 1000)];
  t.ok(
    small.every((r) => b.claim(r, 'a')),
    "A's small ones within its quarter stay",
  );
  const b2 = await b.take(20, 1000);
  t.ok(b2.reserved && b.claim(b2, 'b'), "B's request of half the reserve fits beside them");
  for (const r of [...small, b2, large]) r();
  t.equal(b.used, 0, 'every turn given back');
});

t.test('the server: a reserve of an eighth of the budget for requests up to half of it', async (t) => {
  const b = serverBudget(DEFAULT_BODY_BUDGET);
  t.equal(b.reserve, MIB, 'the reserve of the default budget: 1 MiB');
  t.equal(b.small, 512 * 1024, 'small: at most 512 KiB');
  t.equal(b.namespaceShare, 256 * 1024, "a namespace's share of the reserve: 256 KiB");
  t.equal(reserveOf(64 * MIB), 8 * MIB, 'an eighth of a larger budget');
});

t.test(
  "a small request over its namespace's share of the reserve: 429 with Retry-After, its turn given back",
  async (t) => {
    const { translator, next } = heldTranslator();
    const budget = serverBudget(2 * MIB);
    const a = app(translator, { bodyBudget: budget, hookDeadlineMs: 9500 });
    // A request as large as the budget holds it; the small ones of the same namespace ('toys') take the reserve.
    const large = post(a, request('large', 2 * MIB - 4096));
    const releaseLarge = await next();
    t.equal(budget.small, 128 * 1024);
    const first = post(a, request('s1', 40 * 1024));
    const releaseFirst = await next();
    t.equal(budget.reserved > 0, true, 'the first small request holds a turn of the reserve');
    const second = await post(a, request('s2', 40 * 1024));
    t.equal(second.statusCode, OVERLOADED, "a second past the namespace's share (64 KiB) is told to retry");
    t.equal(second.headers['retry-after'], String(RETRY_AFTER_SECONDS));
    t.match(second.json().message, /share of the server's reserve for small requests/);
    releaseFirst();
    releaseLarge();
    t.same([(await first).statusCode, (await large).statusCode], [200, 200]);
    t.equal(budget.used, 0, 'every turn given back');
  },
);

t.test(
  "the budget's turns shared between namespaces: the next goes to the namespace whose last turn is the oldest",
  async (t) => {
    const b = new BodyBudget(100, 16);
    const order: string[] = [];
    const waits = (size: number, namespace: string | undefined, tag: string) =>
      b.take(size, 1000, undefined, namespace).then((r) => (order.push(tag), r));
    const a1 = await b.take(100, 1000, undefined, 'a');
    t.equal(a1.namespace, 'a', 'a turn says the namespace it was given to');
    const a2 = waits(100, 'a', 'a2');
    const a3 = waits(100, 'a', 'a3');
    const b1 = waits(60, 'b', 'b1');
    t.equal(b.queued, 3);
    a1();
    await new Promise((r) => setImmediate(r));
    t.same(order, ['b1'], "B's request, though the last to arrive, goes before A's others: A's last turn is newer");
    const b2 = waits(10, 'b', 'b2');
    (await b1)();
    await new Promise((r) => setImmediate(r));
    t.same(order, ['b1', 'a2'], "then A's next, in its arrival order, before B's second");
    (await a2)();
    await new Promise((r) => setImmediate(r));
    t.same(order, ['b1', 'a2', 'b2'], "B's second goes before A's third");
    (await b2)();
    await new Promise((r) => setImmediate(r));
    t.same(order, ['b1', 'a2', 'b2', 'a3']);
    (await a3)();
    t.equal(b.used, 0, 'every turn given back');
  },
);

t.test('a request that does not fit yet holds back the others: a large body is not passed for ever', async (t) => {
  const b = new BodyBudget(100, 16);
  const order: string[] = [];
  const a1 = await b.take(60, 1000, undefined, 'a');
  const big = b.take(80, 1000, undefined, 'b').then((r) => (order.push('b-big'), r));
  const small = b.take(10, 1000, undefined, 'c').then((r) => (order.push('c-small'), r));
  await new Promise((r) => setImmediate(r));
  t.same(order, [], "C's small request, which fits, waits behind B's large one (neither served yet: arrival order)");
  a1();
  await new Promise((r) => setImmediate(r));
  t.same(order, ['b-big', 'c-small']);
  (await big)();
  (await small)();
  // A request of a namespace never served that fits passes the one that does not.
  const c1 = await b.take(60, 1000, undefined, 'c');
  const c2 = b.take(80, 1000, undefined, 'c').then((r) => (order.push('c2'), r));
  const d1 = await b.take(30, 1000, undefined, 'd');
  t.equal(d1.namespace, 'd', "D's request fits beside C's and D's last turn is older: taken at once");
  c1();
  d1();
  (await c2)();
  t.equal(b.used, 0, 'every turn given back');
});

t.test(
  'a turn given before its namespace was read counts as its namespace once its body names it (claim)',
  async (t) => {
    const b = new BodyBudget(100, 16);
    const order: string[] = [];
    const first = b.takeNow(100)!;
    t.equal(first.namespace, undefined, 'given at once, before its body was read');
    t.equal(b.takeNow(1), undefined, 'no turn at once with the budget full (and no reserve)');
    const a2 = b.take(100, 1000, undefined, 'a').then((r) => (order.push('a2'), r));
    const unknown = b.take(100, 1000).then((r) => (order.push('unknown'), r));
    t.ok(b.claim(first, 'a'), 'claimed by namespace a');
    const b1 = b.take(100, 1000, undefined, 'b').then((r) => (order.push('b1'), r));
    first();
    await new Promise((r) => setImmediate(r));
    t.same(order, ['unknown'], "the namespace '' (never served) goes first, then B's, A's last");
    (await unknown)();
    await new Promise((r) => setImmediate(r));
    (await b1)();
    await new Promise((r) => setImmediate(r));
    t.same(order, ['unknown', 'b1', 'a2']);
    (await a2)();
    t.equal(b.used, 0, 'every turn given back');
  },
);

t.test('the starts of bodies read ahead: within their room, given back', async (t) => {
  const b = serverBudget();
  t.equal(b.headsRoom, HEADS_ROOM);
  t.equal(HEADS_ROOM, 64 * NAMESPACE_HEAD_BYTES, 'the server reads ahead 64 starts of 64 KiB at once');
  t.ok(b.takeHead(HEADS_ROOM - 10));
  t.notOk(b.takeHead(11), 'past the room: none read');
  t.ok(b.takeHead(10));
  t.equal(b.heads, HEADS_ROOM);
  b.giveHead(HEADS_ROOM);
  t.equal(b.heads, 0);
  t.notOk(new BodyBudget(100).takeHead(1), 'a budget without room for starts reads none');
});

t.test('the namespace a body names, from its start (namespaceOfHead)', async (t) => {
  const body = JSON.stringify({
    controller: { metadata: { name: 'ctl', namespace: 'controller-ns' } },
    parent: {
      apiVersion: 'v1',
      kind: 'Greeting',
      metadata: {
        annotations: { note: '"namespace":"ns-b"', 'x\\"': '{[' },
        labels: { namespace: 'not-this' },
        name: 'g',
        namespace: 'ns-a',
        uid: 'u',
      },
      spec: {},
    },
    children: {},
  });
  t.equal(namespaceOfHead(body), 'ns-a', "the subject's own namespace, not the controller's or a value's");
  const at = body.indexOf('"namespace":"ns-a"');
  t.equal(namespaceOfHead(body.slice(0, at)), undefined, 'a start cut before it: not known');
  t.equal(namespaceOfHead(body.slice(0, at + 16)), undefined, 'cut within it: not known');
  t.equal(namespaceOfHead(body.slice(0, at + 18)), 'ns-a');
  const clusterScoped = JSON.stringify({ controller: {}, object: { kind: 'Node', metadata: { name: 'n' } }, x: {} });
  t.equal(namespaceOfHead(clusterScoped), '', 'an object closed without one: the namespace ""');
  t.equal(namespaceOfHead('{"controller":{}}'), undefined);
});

t.test(
  "a request waiting for its turn: its body's start read ahead for its namespace, in pieces, and given back to its parse",
  async (t) => {
    const { translator, state, next } = heldTranslator();
    const budget = serverBudget(2 * MIB);
    const a = app(translator, { bodyBudget: budget, hookDeadlineMs: 9500 });
    const large = post(a, request('large', 2 * MIB - 4096));
    const releaseLarge = await next();
    // Another namespace's request, over the reserve's small ones: it waits, its body arriving a piece at a time.
    const body = request('other', 300 * 1024).replace('"namespace":"toys"', '"namespace":"elsewhere"');
    t.ok(body.length > budget.small);
    const at = body.indexOf('"namespace":"elsewhere"');
    const stream = new PassThrough();
    const waiting = a.inject({
      method: 'POST',
      url: '/hooks/greeting/sync',
      payload: stream,
      headers: { ...auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    stream.write(body.slice(0, 40));
    await new Promise((r) => setTimeout(r, 20));
    stream.write(body.slice(40, at + 10));
    await new Promise((r) => setTimeout(r, 20));
    t.equal(budget.queued, 0, 'not waiting yet: its start does not name its namespace so far');
    t.ok(budget.heads > 0, 'its start held within the room for starts');
    stream.write(body.slice(at + 10, at + 4096));
    while (budget.queued === 0) await new Promise((r) => setTimeout(r, 5));
    t.equal(budget.queued, 1, 'waiting for its turn once its namespace is read');
    t.ok(budget.heads > 0, 'its start held while it waits');
    stream.end(body.slice(at + 4096));
    releaseLarge();
    (await next())();
    const res = await waiting;
    t.equal(res.statusCode, 200, 'answered: its body parsed whole, the start read ahead included');
    t.match(res.json(), { children: [{ metadata: { name: 'other', namespace: 'elsewhere' } }] });
    t.equal((await large).statusCode, 200);
    t.equal(state.calls, 2);
    t.equal(budget.used, 0, 'every turn given back');
    t.equal(budget.heads, 0, 'the room for its start given back once it had its turn');
  },
);

t.test(
  "a turn in hand is asked to give way once another namespace's request has waited half its wait (Release.wanted)",
  async (t) => {
    t.equal(GIVE_WAY_SHARE, 1 / 2);
    const b = new BodyBudget(100, 16);
    const a1 = await b.take(100, 1000, undefined, 'a');
    const early = a1.wanted();
    t.notOk(early.aborted, 'nobody waits: not asked');
    // A's own request waiting asks nothing of A's turn; a request of no known namespace ('') neither.
    const a2 = b.take(100, 80, undefined, 'a');
    const unknown = b.take(100, 80);
    await new Promise((r) => setTimeout(r, 60));
    t.notOk(early.aborted, "A's own request and one of no known namespace, waiting past half their wait, ask nothing");
    await t.rejects(a2);
    await t.rejects(unknown);
    // B's request waits: not asked before half its wait, asked after.
    const b1 = b.take(60, 200, undefined, 'b');
    await new Promise((r) => setTimeout(r, 20));
    t.notOk(early.aborted, 'B has waited less than half its wait');
    await new Promise((r) => setTimeout(r, 120));
    t.ok(early.aborted, "B has waited half its wait: A's turn is asked to give way");
    t.match(String(early.reason), /namespace b has waited/);
    a1();
    const turn = await b1;
    t.equal(turn.namespace, 'b', "B's request has its turn once A's is given back");
    t.notOk(turn.wanted().aborted, "B's turn is not asked (nobody waits)");
    turn();
    t.equal(b.used, 0);
  },
);

t.test(
  'a turn given before its namespace was known is asked only once its body names another namespace (claim)',
  async (t) => {
    const b = new BodyBudget(100, 16);
    const first = b.takeNow(100)!;
    t.equal(first.namespace, undefined, 'taken at once, before its body was read');
    const b1 = b.take(60, 100, undefined, 'b');
    await new Promise((r) => setTimeout(r, 70));
    // Its body names B itself: B's request asked nothing of its own namespace.
    t.ok(b.claim(first, 'b'));
    t.notOk(first.wanted().aborted, "the turn is B's own: not asked by B's request");
    await t.rejects(b1);
    first();
    const second = b.takeNow(100)!;
    const b2 = b.take(60, 100, undefined, 'b');
    await new Promise((r) => setTimeout(r, 70));
    const wanted = second.wanted();
    t.notOk(wanted.aborted, 'not known yet: not asked');
    t.ok(b.claim(second, 'a'));
    t.ok(wanted.aborted, "its body names A: B's request asked it to give way");
    second();
    (await b2)();
    t.equal(b.used, 0);
  },
);

t.test('a turn of the reserve is never asked to give way', async (t) => {
  const b = new BodyBudget(100, 16, 40);
  const large = await b.take(100, 1000, undefined, 'a');
  const small = b.takeNow(10, 'a')!;
  t.ok(small.reserved);
  const waiting = b.take(60, 60, undefined, 'b');
  await new Promise((r) => setTimeout(r, 45));
  t.ok(large.wanted().aborted, "A's turn of the budget is asked");
  t.notOk(small.wanted().aborted, "A's turn of the reserve is not: it holds back no large request");
  await t.rejects(waiting);
  small();
  large();
});
