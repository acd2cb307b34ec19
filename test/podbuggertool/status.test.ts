// A PodBuggerTool's status (hooks/podbuggertool/sync.ts): counted from the API server a page at a time, never from a
// request that grows with the pods; honest while not done (pending, Injecting), at any size (CountIncomplete rather
// than a stale Ready), quiet at rest (the same status, nothing written), and no more often than REFRESH_SECONDS.
import t from 'tap';
import { openToken } from '../../hooks/podbuggertool/seal.js';
import { AuthorCache } from '../../hooks/podbuggertool/author.js';
import { DEFAULT_POLICY, FAILURES_ANNOTATION, refusal } from '../../hooks/podbuggertool/match.js';
import { COUNT_BUDGET_MS, MAX_LISTED, PAGE_SIZE, REFRESH_SECONDS } from '../../hooks/podbuggertool/sync.js';
import { AnswerTooLargeError } from '../../lib/http.js';
import { rfc3339 } from '../../lib/conditions.js';
import { KubeError } from '../../lib/kube.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { ANY, FakeApi, injectAll, pod, status, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);
/** A time as Kubernetes writes it (to the second). */
const at = (seconds: number) => rfc3339(later(seconds));
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');
const names = (n: number, prefix = 'p') =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);

t.test('counted from the API server: the tool alone in the request, its pods listed a page at a time', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (const n of names(PAGE_SIZE * 2 + 10)) api.put(pod(n, { app: 'web' }));
  api.put(pod('db', { app: 'db' })).put(pod('web-x', { app: 'web' }, {}, 'elsewhere'));
  const res = await status(api, ['dbg', 'a']);
  t.same(
    api.lists.map((l) => [l.ns, l.options.labelSelector, l.options.limit, l.options.continue]),
    [
      ['dbg', 'app=web', PAGE_SIZE, undefined],
      ['dbg', 'app=web', PAGE_SIZE, String(PAGE_SIZE)],
      ['dbg', 'app=web', PAGE_SIZE, String(PAGE_SIZE * 2)],
    ],
    "the tool's namespace, its selector, page after page",
  );
  t.match(res.status, { matched: PAGE_SIZE * 2 + 10, injected: 0, pending: PAGE_SIZE * 2 + 10, failed: 0, skipped: 0 });
  t.same(ready(res), {
    type: 'Ready',
    status: 'False',
    reason: 'Injecting',
    message: `0 of ${PAGE_SIZE * 2 + 10} matching pods carry debug-a; ${PAGE_SIZE * 2 + 10} pending`,
    lastTransitionTime: at(0),
    observedGeneration: 1,
  });
  t.equal(res.resyncAfterSeconds, REFRESH_SECONDS, 'counted again soon while not done');
  t.equal(api.patches.length + api.gets.filter((g) => g.includes('pods')).length, 0, 'the status only reads');
});

t.test('honest while not done, Ready once every pod carries it; then quiet at rest', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (const n of names(6)) api.put(pod(n, { app: 'web' }));
  const first = await statusAndApply(api, ['dbg', 'a']);
  t.match(first.status, { matched: 6, injected: 0, pending: 6, countedAt: at(0) });
  // The injector adds the container to every pod; the status says so only at the next count, REFRESH_SECONDS later.
  await injectAll(api, 'dbg');
  const lists = api.lists.length;
  // The echo of the status write, within REFRESH_SECONDS: the counts are held, nothing read.
  const echo = await status(api, ['dbg', 'a'], { now: later(2) });
  t.same(echo.status, api.stored('PodBuggerTool', 'dbg', 'a').status);
  t.equal(echo.resyncAfterSeconds, REFRESH_SECONDS - 2);
  t.equal(api.lists.length, lists, 'held: not counted again');
  const done = await statusAndApply(api, ['dbg', 'a'], { now: later(REFRESH_SECONDS) });
  t.match(done.status, {
    matched: 6,
    injected: 6,
    pending: 0,
    outdated: 0,
    failed: 0,
    skipped: 0,
    failures: [],
    skips: [],
    containerName: 'debug-a',
    countedAt: at(REFRESH_SECONDS),
  });
  t.same(ready(done), {
    type: 'Ready',
    status: 'True',
    reason: 'Injected',
    message: '6 of 6 matching pods carry debug-a',
    lastTransitionTime: at(REFRESH_SECONDS),
    observedGeneration: 1,
  });
  t.equal(done.resyncAfterSeconds, undefined, 'at rest: the resync period');
  // At rest: counted at every resync, the same status (countedAt too): nothing is written.
  for (const minutes of [1, 2, 3]) {
    const again = await status(api, ['dbg', 'a'], { now: later(minutes * 60) });
    t.same(again.status, done.status, `${minutes} min later: the same status`);
  }
  // A new pod at rest: in the next count.
  api.put(pod('new', { app: 'web' }));
  const more = await status(api, ['dbg', 'a'], { now: later(300) });
  t.match(more.status, { matched: 7, injected: 6, pending: 1, countedAt: at(300) });
  // The tool created again with another spec (a spec is fixed at creation) is counted at once, whatever the time of
  // the last count.
  const changed = api.stored('PodBuggerTool', 'dbg', 'a');
  changed.metadata.uid = 'uid-tool-a-again';
  delete changed.status;
  changed.spec.image = 'busybox:2';
  api.put(changed);
  const recount = await status(api, ['dbg', 'a'], { now: later(301) });
  t.match(recount.status, { matched: 7, injected: 0, outdated: 6, pending: 1 });
});

t.test('every state counted, listed by pod name, five named in Ready', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:2', targetContainerName: 'app' }));
  const carrying = (image: string) => ({ ephemeralContainers: [{ name: 'debug-a', image }] });
  // As the injector adds it for this spec: the image, and the target container the pod has.
  api.put(
    pod(
      'in',
      { app: 'web' },
      { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:2', targetContainerName: 'app' }] },
    ),
  );
  api.put(pod('old', { app: 'web' }, carrying('busybox:1')));
  api.put(pod('new', { app: 'web' }));
  api.put({ ...pod('done', { app: 'web' }), status: { phase: 'Succeeded' } });
  api.put(pod('other', { app: 'web' }, { containers: [{ name: 'sidecar' }] }));
  for (const n of ['f2', 'f1']) {
    api.put(pod(n, { app: 'web' }));
    api.annotate('dbg', n, { [FAILURES_ANNOTATION]: '{"debug-a":"Forbidden"}' });
  }
  const dying = pod('dying', { app: 'web' });
  dying.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  api.put(dying);
  const res = await status(api, ['dbg', 'a']);
  t.match(res.status, {
    matched: 7,
    injected: 1,
    outdated: 1,
    pending: 1,
    skipped: 2,
    failed: 2,
    failures: [
      { pod: 'f1', reason: 'Forbidden' },
      { pod: 'f2', reason: 'Forbidden' },
    ],
    skips: [
      { pod: 'done', reason: 'PodCompleted' },
      { pod: 'other', reason: 'TargetContainerMissing' },
    ],
  });
  t.same(ready(res), {
    type: 'Ready',
    status: 'False',
    reason: 'InjectionFailed',
    message:
      'debug-a could not be added to 2 of 7 matching pods: f1 (Forbidden), f2 (Forbidden); retried from 30s, backing off to 1h',
    lastTransitionTime: at(0),
    observedGeneration: 1,
  });
  t.equal(res.resyncAfterSeconds, REFRESH_SECONDS, 'pending pods: counted again soon');

  // More than the status lists: all counted, the first MAX_LISTED by name listed, five named in Ready.
  const many = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (const n of names(MAX_LISTED + 30, 'q')) {
    many.put(pod(n, { app: 'web' }));
    many.annotate('dbg', n, { [FAILURES_ANNOTATION]: '{"debug-a":"Invalid"}' });
  }
  const r2 = await status(many, ['dbg', 'a']);
  t.match(r2.status, { matched: MAX_LISTED + 30, failed: MAX_LISTED + 30 });
  t.same(
    (r2.status as any).failures,
    names(MAX_LISTED, 'q').map((pod) => ({ pod, reason: 'Invalid' })),
  );
  t.equal(
    ready(r2).message,
    `debug-a could not be added to ${MAX_LISTED + 30} of ${MAX_LISTED + 30} matching pods: q0000 (Invalid), q0001 (Invalid), q0002 (Invalid), q0003 (Invalid), q0004 (Invalid) and more; retried from 30s, backing off to 1h`,
  );
  t.equal(r2.resyncAfterSeconds, 30, 'failures only: counted again when they are retried');
});

t.test('Ready says what keeps the tool from being done, in order', async (t) => {
  const check = async (
    spec: Record<string, unknown>,
    pods: Array<[string, Record<string, unknown>, Record<string, unknown>?]>,
  ) => {
    const api = new FakeApi().put(tool('a', Object.assign({ label: 'app=web', image: 'busybox' }, spec)));
    for (const [name, podSpec, status] of pods)
      api.put({ ...pod(name, { app: 'web' }, podSpec), ...(status ? { status } : {}) });
    return status(api, ['dbg', 'a']);
  };
  const root = await check({ securityProfile: 'restricted' }, [
    ['r1', {}],
    ['r2', { securityContext: { runAsUser: 5 } }],
  ]);
  t.match(ready(root), {
    status: 'False',
    reason: 'RunsAsRoot',
    message:
      "the restricted profile (or the pod's securityContext.runAsNonRoot) runs the container as a non-root user, and none is set for r1: the image's own user (root for busybox) would be refused by the kubelet; set spec.runAsUser",
  });
  t.match(root.status, { skipped: 1, pending: 1, skips: [{ pod: 'r1', reason: 'RunsAsRoot' }] });
  const target = await check({ targetContainerName: 'db' }, [
    ['t1', {}],
    ['t2', { containers: [{ name: 'db' }] }],
  ]);
  t.match(ready(target), {
    reason: 'TargetContainerMissing',
    message: 'spec.targetContainerName is not a container of t1: those pods are skipped',
  });
  const taken = await check({}, [
    ['n1', { containers: [{ name: 'app' }, { name: 'debug-a' }] }],
    ['n2', { containers: [{ name: 'app' }] }],
  ]);
  t.match(ready(taken), {
    status: 'False',
    reason: 'ContainerNameTaken',
    message: 'a container named debug-a is already in n1: those pods are skipped (rename the tool, or the container)',
  });
  t.match(taken.status, { skipped: 1, pending: 1, skips: [{ pod: 'n1', reason: 'ContainerNameTaken' }] });
  const completed = await check({}, [
    ['c1', { ephemeralContainers: [{ name: 'debug-a', image: 'alpine' }] }],
    ['c2', {}, { phase: 'Failed' }],
  ]);
  // Ready=True, Injected is "every matching pod carries the container" (docs/podbuggertool.md, the Ready table): a pod
  // carrying an earlier spec's does not carry the one this spec adds, so the tool is not done (Outdated).
  t.same(ready(completed), {
    type: 'Ready',
    status: 'False',
    reason: 'Outdated',
    message:
      '0 of 2 matching pods carry debug-a; 1 carry it as an earlier spec made it (another image, command, args, env, security profile or target container): ephemeral containers cannot be changed; delete those pods to have the current one; 1 skipped (PodCompleted)',
    lastTransitionTime: at(0),
    observedGeneration: 1,
  });
  // The kubelet refused to start it as root: failed, not injected.
  const refusedByKubelet = await check({}, [
    [
      'k1',
      { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] },
      {
        phase: 'Running',
        ephemeralContainerStatuses: [
          {
            name: 'debug-a',
            state: {
              waiting: {
                reason: 'CreateContainerConfigError',
                message: 'container has runAsNonRoot and image will run as root',
              },
            },
          },
        ],
      },
    ],
  ]);
  t.match(refusedByKubelet.status, { injected: 0, failed: 1, failures: [{ pod: 'k1', reason: 'RunsAsRoot' }] });
  const many = await check(
    { securityProfile: 'restricted' },
    names(7, 'r').map((n) => [n, {}]),
  );
  t.match(ready(many).message, /none is set for r0000, r0001, r0002, r0003, r0004 and more:/);
});

t.test(
  "the policy's and the author's refusals are the tool's Ready; an excluded namespace is not even read",
  async (t) => {
    for (const [spec, reason] of [
      [{ image: 'evil.example/x' }, 'ImageNotAllowed'],
      [{ securityProfile: 'general' }, 'ProfileNotAllowed'],
    ] as const) {
      const api = new FakeApi()
        .put(tool('a', Object.assign({ label: 'app=web', image: 'busybox' }, spec)))
        .put(pod('p', { app: 'web' }));
      const res = await status(api, ['dbg', 'a'], { policy: DEFAULT_POLICY });
      const why = refusal(
        Object.assign({ label: 'app=web', image: 'busybox', securityProfile: 'baseline' }, spec) as never,
        'dbg',
        DEFAULT_POLICY,
      )!;
      t.match(ready(res), { status: 'False', reason, message: why.message });
      // Refused: acting for no one who may be told about the pods (its author is not even asked): nothing read.
      t.notOk('matched' in res.status!, `${reason}: not counted`);
      t.equal(api.lists.length, 0, `${reason}: no pod read`);
      t.equal(api.reviews.length, 0, 'no author asked about a tool the policy refuses');
    }
    const excluded = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox' }, 'kube-system'))
      .put(pod('p', { app: 'web' }, {}, 'kube-system'));
    const r = await status(excluded, ['kube-system', 'a'], { policy: DEFAULT_POLICY });
    t.match(ready(r), { reason: 'NamespaceExcluded', message: /kube-system/ });
    t.notOk('matched' in r.status!, 'nothing counted (not even a zero it did not count)');
    t.equal(excluded.lists.length + excluded.gets.length + excluded.reviews.length, 0, 'not even read');

    const denied = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', 'mallory'))
      .put(pod('p', { app: 'web' }));
    denied.allow = (user) => user !== 'mallory';
    const d = await status(denied, ['dbg', 'a']);
    t.match(ready(d), {
      status: 'False',
      reason: 'AuthorNotAllowed',
      message: /mallory may not patch pods\/ephemeralcontainers in namespace dbg/,
    });
    const unstamped = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', null));
    t.match(ready(await status(unstamped, ['dbg', 'a'])), { reason: 'AuthorUnverified' });
    const off = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', null));
    t.match(ready(await status(off, ['dbg', 'a'], { policy: { ...ANY, authorCheck: 'off' } })), { status: 'True' });
    t.equal(off.reviews.length + off.gets.length, 0, 'the check off: nothing asked');
  },
);

t.test(
  'a count that cannot finish: the last complete counts kept, and said so; failures to read are temporary',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    for (const n of names(PAGE_SIZE + 5)) api.put(pod(n, { app: 'web' }));
    const complete = await statusAndApply(api, ['dbg', 'a']);
    // The deadline passes after the first page (or COUNT_BUDGET_MS, whichever comes first): no page of pods after it.
    t.equal(COUNT_BUDGET_MS, 4000);
    const list = api.list.bind(api);
    const aborted = new AbortController();
    // Past the first page of pods and the namespace's tools it needs (its pods are pending: each is measured with
    // them; a count whose time runs out before they are listed stops before that page,
    // namespace-tools-size-unknown-never-counted-fitting.test.ts).
    api.list = async (...args) => {
      const page = await list(...args);
      if (args[1] === 'podbuggertools') aborted.abort(new Error('deadline'));
      return page;
    };
    const cut = await status(api, ['dbg', 'a'], { now: later(120), signal: aborted.signal });
    const counts = ({ matched, injected, pending, failed, skipped, outdated }: any) => ({
      matched,
      injected,
      pending,
      failed,
      skipped,
      outdated,
    });
    t.same(counts(cut.status), counts(complete.status), 'the last complete counts');
    t.equal((cut.status as any).countedAt, (complete.status as any).countedAt);
    // The status held a complete count of this spec: the count cut short is remembered by the server, and the status
    // stays the last complete result (the same Ready), not CountIncomplete: nothing is written while it goes on.
    t.same(cut.status, complete.status, 'the status as it was: the last complete result, without countProgress');
    t.match(ready(cut), { reason: 'Injecting' });
    t.equal(cut.resyncAfterSeconds, REFRESH_SECONDS, 'counted on soon');
    // The next sync resumes from the next page: the count completes.
    api.list = list;
    const lists = api.lists.length;
    const resumed = await statusAndApply(api, ['dbg', 'a'], { now: later(130) });
    t.same(
      api.lists.slice(lists).map((l) => l.options.continue),
      [String(PAGE_SIZE)],
      'one page: the one after where it stopped',
    );
    t.match(resumed.status, { matched: PAGE_SIZE + 5, pending: PAGE_SIZE + 5 });
    t.equal((resumed.status as any).countProgress, undefined);
    t.match(ready(resumed), { reason: 'Injecting' });
    // A first count cut short (no complete count of this spec in the status): said so, and resumed from the status.
    const first = new FakeApi().put(tool('c', { label: 'app=web', image: 'busybox' }));
    for (const n of names(PAGE_SIZE + 5)) first.put(pod(n, { app: 'web' }));
    const firstList = first.list.bind(first);
    const stopFirst = new AbortController();
    first.list = async (...args) => {
      const page = await firstList(...args);
      if (args[1] === 'podbuggertools') stopFirst.abort(new Error('deadline'));
      return page;
    };
    const partial = await status(first, ['dbg', 'c'], { signal: stopFirst.signal });
    t.match(partial.status, { matched: 0, injected: 0, pending: 0 }, 'zeros: no complete count yet');
    t.match(ready(partial), {
      status: 'False',
      reason: 'CountIncomplete',
      message: `${PAGE_SIZE} pods read so far, not all of them (each sync reads for 4 s, and the next resumes where it stopped): the counts are those of the last complete count; counted on in ${REFRESH_SECONDS}s`,
    });
    t.equal(partial.resyncAfterSeconds, REFRESH_SECONDS);
    t.match((partial.status as any).countProgress, { generation: 1, continue: /^s1\./, read: PAGE_SIZE });
    const sealed = (partial.status as any).countProgress.continue;
    t.equal(openToken(undefined, first.stored('PodBuggerTool', 'dbg', 'c'), sealed), String(PAGE_SIZE), 'sealed');
    first.list = firstList;
    first.setStatus('dbg', 'c', partial.status);
    const firstLists = first.lists.length;
    const done = await statusAndApply(first, ['dbg', 'c'], { now: later(10) });
    t.same(
      first.lists.slice(firstLists).map((l) => l.options.continue),
      [String(PAGE_SIZE)],
    );
    t.match(done.status, { matched: PAGE_SIZE + 5, pending: PAGE_SIZE + 5 });
    t.equal((done.status as any).countProgress, undefined);
    // Without a complete count before: zeros, not a guess.
    const fresh = new FakeApi().put(tool('b', { label: 'app=web', image: 'busybox' }));
    const stop = new AbortController();
    stop.abort(new Error('deadline'));
    const none = await status(fresh, ['dbg', 'b'], { signal: stop.signal });
    t.match(none.status, { matched: 0, injected: 0, pending: 0 });
    t.match(ready(none), { reason: 'CountIncomplete', message: /^0 pods read so far/ });

    // A page too large to read is asked for again, smaller; past it, the pages grow again.
    const big = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    for (const n of names(5)) big.put(pod(n, { app: 'web' }));
    const bigList = big.list.bind(big);
    big.list = async (v, r, ns, o) => {
      if (r === 'pods' && o.limit > 2) {
        big.lists.push({ ns, options: { ...o } });
        throw new AnswerTooLargeError(4 * 1024 * 1024);
      }
      return bigList(v, r, ns, o);
    };
    const b = await status(big, ['dbg', 'a']);
    t.match(b.status, { matched: 5, pending: 5 });
    t.same(
      big.lists.map((l) => l.options.limit),
      [250, 125, 62, 31, 15, 7, 3, 1, 2, 4, 2],
    );

    // A list the API server refuses: a temporary failure, the status kept, Ready=False with its reason.
    const refused = new FakeApi().put({ ...tool('a', { label: 'app=web', image: 'busybox' }), status: { matched: 3 } });
    refused.failList = new KubeError(403, 'pods is forbidden', 'Forbidden');
    const f = await status(refused, ['dbg', 'a']);
    t.match(f.status, { matched: 3 });
    t.match(ready(f), {
      status: 'False',
      reason: 'Forbidden',
      message: 'could not list the pods the tool selects: Forbidden',
    });
    t.equal(f.resyncAfterSeconds, 30);
    const unreachable = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    unreachable.failReview = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const u = await status(unreachable, ['dbg', 'a']);
    t.match(ready(u), {
      reason: 'Unreachable',
      message: /could not ask the API server whether the tool's author may debug/,
    });
  },
);

t.test(
  'held: the echo of a status write is answered from it, unless the spec changed or the time is odd',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('p', { app: 'web' }));
    await statusAndApply(api, ['dbg', 'a']);
    const lists = api.lists.length;
    // countedAt is to the second (03:04:05Z); the clock is 0.678 s past it.
    for (const [seconds, resync] of [
      [0, 10],
      [1, 9],
      [REFRESH_SECONDS - 1, 1],
    ]) {
      const r = await status(api, ['dbg', 'a'], { now: later(seconds!) });
      t.equal(r.resyncAfterSeconds, resync, `${seconds}s`);
    }
    t.equal(api.lists.length, lists);
    for (const seconds of [REFRESH_SECONDS, -1]) {
      await status(api, ['dbg', 'a'], { now: later(seconds) });
      t.equal(api.lists.length, lists + 1, `${seconds}s: counted`);
      api.lists.length = lists;
    }
    const parent = api.stored('PodBuggerTool', 'dbg', 'a');
    await status(api, ['dbg', 'a'], {}, { ...parent, status: { ...parent.status, countedAt: 'yesterday' } });
    t.equal(api.lists.length, lists + 1, 'a countedAt that is no time');
    await status(api, ['dbg', 'a'], {}, { ...parent, status: { ...parent.status, countedAt: 7 } });
    t.equal(api.lists.length, lists + 2);
    await status(api, ['dbg', 'a'], {}, { ...parent, status: { ...parent.status, observedGeneration: 2 } });
    t.equal(api.lists.length, lists + 3, 'a status of another generation');
    const noGeneration = {
      ...parent,
      metadata: { ...parent.metadata, generation: undefined },
      status: { ...parent.status, observedGeneration: 0 },
    };
    const held = await status(api, ['dbg', 'a'], {}, noGeneration);
    t.equal(api.lists.length, lists + 3, 'generation 0 is the 0 observed');
    t.equal(held.resyncAfterSeconds, REFRESH_SECONDS);
  },
);

t.test('a previous status that is not whole or not well formed is counted again and replaced', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] }));
  const whole = (await status(api, ['dbg', 'a'])).status as any;
  for (const broken of [
    { ...whole, matched: '1' },
    { ...whole, failures: 'x' },
    { ...whole, skips: [{ pod: 1, reason: 'x' }] },
    { ...whole, failures: [null] },
    { ...whole, pending: undefined },
  ]) {
    const parent = { ...api.stored('PodBuggerTool', 'dbg', 'a'), status: broken };
    const res = await status(api, ['dbg', 'a'], { now: later(60) }, parent);
    t.equal((res.status as any).countedAt, at(60), 'the counts are new: countedAt moves');
    t.match(res.status, { matched: 1, injected: 1, failures: [], skips: [] });
  }
  const same = await status(
    api,
    ['dbg', 'a'],
    { now: later(60) },
    { ...api.stored('PodBuggerTool', 'dbg', 'a'), status: { ...whole, countedAt: undefined } },
  );
  t.equal((same.status as any).countedAt, at(60), 'the same counts, never dated: dated now');
});

t.test("the author's answer is remembered for a while: a busy namespace does not ask at every count", async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const cache = new AuthorCache(() => 0);
  for (let i = 0; i < 3; i++) await status(api, ['dbg', 'a'], { cache, now: later(60 * i) });
  t.same(
    api.reviews.map((r) => r.attributes['verb']),
    ['patch', 'list'],
    'once each: may the author debug, may the status name pods',
  );
});

t.test(
  'the lists are in pod name order whatever order the API server answers in; Ready names five, more says so',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox', targetContainerName: 'app' }));
    const list = api.list.bind(api);
    api.list = async (...args: Parameters<FakeApi['list']>) => {
      const page = await list(...args);
      return { ...page, items: [...page.items].reverse() };
    };
    for (const n of ['f1', 'f2', 'f3', 'f4', 'f5']) {
      api.put(pod(n, { app: 'web' }, { containers: [{ name: 'app' }] }));
      api.annotate('dbg', n, { [FAILURES_ANNOTATION]: '{"debug-a":"Forbidden"}' });
    }
    for (const n of ['s1', 's2']) api.put(pod(n, { app: 'web' }, { containers: [{ name: 'sidecar' }] }));
    const res = await status(api, ['dbg', 'a']);
    t.same(
      (res.status as any).failures,
      ['f1', 'f2', 'f3', 'f4', 'f5'].map((pod) => ({ pod, reason: 'Forbidden' })),
    );
    t.same(
      (res.status as any).skips,
      ['s1', 's2'].map((pod) => ({ pod, reason: 'TargetContainerMissing' })),
    );
    t.equal(
      ready(res).message,
      'debug-a could not be added to 5 of 7 matching pods: f1 (Forbidden), f2 (Forbidden), f3 (Forbidden), f4 (Forbidden), f5 (Forbidden); retried from 30s, backing off to 1h',
      'exactly five: all named, no "and more"',
    );
  },
);

t.test('a status counted this very second is held (the echo of its own write)', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  api.put(pod('p', { app: 'web' }));
  const first = await statusAndApply(api, ['dbg', 'a']);
  const lists = api.lists.length;
  const echo = await status(api, ['dbg', 'a'], { now: new Date(Date.parse((first.status as any).countedAt)) });
  t.same(echo.status, api.stored('PodBuggerTool', 'dbg', 'a').status);
  t.equal(api.lists.length, lists, 'not counted again');
});

t.test('skipped pods: all counted, the first MAX_LISTED by name listed', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox', targetContainerName: 'app' }));
  for (const n of names(MAX_LISTED + 3, 's')) api.put(pod(n, { app: 'web' }, { containers: [{ name: 'sidecar' }] }));
  const res = await status(api, ['dbg', 'a']);
  t.match(res.status, { matched: MAX_LISTED + 3, skipped: MAX_LISTED + 3 });
  t.same(
    (res.status as any).skips,
    names(MAX_LISTED, 's').map((pod) => ({ pod, reason: 'TargetContainerMissing' })),
  );
});

/** A status as the API server hands it back: Go writes an object's keys sorted. */
function asStored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asStored);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, asStored((value as Record<string, unknown>)[k])]),
  );
}

t.test(
  'at rest the held answer and a new count are the same answer, byte for byte (the webhook ETag holds)',
  async (t) => {
    const api = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox' }))
      .put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] }));
    const counted = await status(api, ['dbg', 'a']);
    t.equal(ready(counted).reason, 'Injected');
    api.setStatus('dbg', 'a', asStored(counted.status) as never);
    const lists = api.lists.length;
    const echoes = [];
    for (const seconds of [1, 4, REFRESH_SECONDS - 1])
      echoes.push(await status(api, ['dbg', 'a'], { now: later(seconds) }));
    t.equal(api.lists.length, lists, 'the echoes are held: not counted again');
    const recount = await status(api, ['dbg', 'a'], { now: later(60) });
    t.equal(api.lists.length, lists + 1, 'counted at the resync');
    for (const echo of echoes) t.equal(JSON.stringify(echo), JSON.stringify(recount));
    t.equal(recount.resyncAfterSeconds, undefined, 'at rest: the resync period');
  },
);

t.test('a held Ready the counts do not explain is looked at again: a refusal is not held', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('p', { app: 'web' }));
  const counted = await status(api, ['dbg', 'a']);
  const refused = {
    ...(counted.status as any),
    conditions: [{ ...ready(counted), reason: 'AuthorForbidden', message: 'no' }],
  };
  api.setStatus('dbg', 'a', refused);
  const lists = api.lists.length;
  await status(api, ['dbg', 'a'], { now: later(1) });
  t.equal(api.lists.length, lists + 1, 'counted again');
  api.setStatus('dbg', 'a', { ...(counted.status as any), conditions: [] });
  await status(api, ['dbg', 'a'], { now: later(1) });
  t.equal(api.lists.length, lists + 2, 'no Ready at all: counted again');
});
