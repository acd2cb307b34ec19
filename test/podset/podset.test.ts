import t from 'tap';
import { answerBudget, byOrdinal, ordinalOf, parser } from '../../hooks/podset/sync.js';
import { answerBudgetProblem } from '../../lib/budget.js';
import { MAX_ANSWER_BYTES } from '../../hooks/podset/schema.js';
import { podsetPodsSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { asObserved, example, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const now = FIXED_NOW;
const names = (children: KubeObject[]) => children.map((c) => c.metadata.name);

t.test('size 3 gives three busybox pods running sleep 3600, named <name>-pod-<ordinal>', async (t) => {
  const res = sync(request('podset', { size: 3 }), now);
  t.same(names(res.children), ['podset-sample-pod-0', 'podset-sample-pod-1', 'podset-sample-pod-2']);
  for (const pod of res.children as any[]) {
    t.equal(pod.kind, 'Pod');
    t.same(pod.spec.containers, [
      {
        name: 'busybox',
        image: 'busybox',
        command: ['sleep', '3600'],
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ]);
    t.same(
      pod.spec.securityContext,
      { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } },
      'Pod Security restricted',
    );
    t.equal(pod.metadata.labels.app, 'podset-sample');
    t.equal(pod.metadata.labels['app.kubernetes.io/instance'], 'podset-sample');
  }
});

t.test('image and command are overridable', async (t) => {
  const res = sync(request('podset', { size: 1, image: 'busybox:1.36', command: ['sh', '-c', 'sleep 10'] }), now);
  t.same((res.children[0] as any).spec.containers[0], {
    name: 'busybox',
    image: 'busybox:1.36',
    command: ['sh', '-c', 'sleep 10'],
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  });
});

t.test('scaling down removes the highest ordinals; status reports what exists', async (t) => {
  const req = example('podset-sync'); // size 2, three pods observed, two ready
  const res = sync(req, now);
  t.same(names(res.children), ['podset-sample-0', 'podset-sample-1'], 'podset-sample-2 is dropped');
  const status = res.status as any;
  t.same(status.nodes, ['podset-sample-0', 'podset-sample-1', 'podset-sample-2']);
  t.equal(status.replicas, 3);
  t.equal(status.readyReplicas, 2);
  t.match(
    status.conditions.find((c: any) => c.type === 'Progressing'),
    { reason: 'ScalingDown' },
  );
});

t.test('a deleted pod comes back under its own name', async (t) => {
  const pods = [0, 2].map((i) =>
    asObserved(
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: `podset-sample-${i}`, namespace: 'default' } },
      readyPod,
    ),
  );
  const res = sync(request('podset', { size: 3 }, { children: objectMap(pods, 'v2') }), now);
  t.same(names(res.children), ['podset-sample-0', 'podset-sample-1', 'podset-sample-2']);
  t.match(
    (res.status as any).conditions.find((c: any) => c.type === 'Progressing'),
    { reason: 'ScalingUp' },
  );
});

t.test('nodes are ordered by ordinal, not by string', async (t) => {
  const pods = [10, 2, 1].map((i) =>
    asObserved({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `podset-sample-${i}`, namespace: 'default' } }),
  );
  const res = sync(request('podset', { size: 11 }, { children: objectMap(pods) }), now);
  t.same((res.status as any).nodes, ['podset-sample-1', 'podset-sample-2', 'podset-sample-10']);
});

t.test('byOrdinal: ordinal order, far ordinals and other names after, as a sort would give', async (t) => {
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name } }) as KubeObject;
  const order = (names: string[]) => byOrdinal('web', names.map(pod)).map((p) => p.metadata.name);
  t.same(order(['web-900', 'x', 'web-3', 'web-01', 'web-0', 'a']), ['web-0', 'web-3', 'web-900', 'a', 'web-01', 'x']);
  t.same(order([]), []);
  // Against the obvious sort, on random sets of names.
  for (let run = 0; run < 50; run++) {
    const names = new Set<string>();
    const n = Math.floor(Math.random() * 40);
    while (names.size < n)
      names.add(Math.random() < 0.8 ? `web-${Math.floor(Math.random() * 100)}` : `w${Math.floor(Math.random() * 100)}`);
    const key = (s: string) => ordinalOf('web', s) ?? Number.MAX_SAFE_INTEGER;
    const expected = [...names].sort((a, b) => key(a) - key(b) || (a < b ? -1 : a > b ? 1 : 0));
    t.same(order([...names]), expected);
  }
});

t.test('ordinals', async (t) => {
  t.equal(ordinalOf('web', 'web-0'), 0);
  t.equal(ordinalOf('web', 'web-12'), 12);
  t.equal(ordinalOf('web', 'web-1-0'), undefined);
  t.equal(ordinalOf('web', 'web-01'), undefined);
  t.equal(ordinalOf('web', 'other-1'), undefined);
  t.equal(ordinalOf('web', 'web-'), undefined);
  t.equal(ordinalOf('web', 'web'), undefined);
  t.equal(ordinalOf('web', 'webx1'), undefined);
  t.equal(
    ordinalOf('web', 'web-12345678901234567890'),
    Number('12345678901234567890'),
    'read as a number, precision lost as JSON would',
  );
  // The same reading as the plain regular expression, on random names around the base.
  const plain = (base: string, name: string) => {
    if (!name.startsWith(`${base}-`)) return undefined;
    const rest = name.slice(base.length + 1);
    return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
  };
  const pieces = ['web', '-', '0', '1', '9', '00', '12', 'a', '/', ':', '9007199254740993'];
  const wrong: string[] = [];
  for (let run = 0; run < 2000; run++) {
    let name = '';
    const n = Math.floor(Math.random() * 6);
    for (let i = 0; i < n; i++) name += pieces[Math.floor(Math.random() * pieces.length)];
    if (ordinalOf('web', name) !== plain('web', name)) wrong.push(name);
  }
  t.same(wrong, [], 'the same as the regular expression on random names');
});

t.test('size 0 keeps no pods and is Available', async (t) => {
  const res = sync(request('podset', { size: 0 }), now);
  t.same(res.children, []);
  t.match(
    (res.status as any).conditions.find((c: any) => c.type === 'Available'),
    { status: 'True' },
  );
});

t.test('an invalid size deletes nothing', async (t) => {
  const pods = [0, 1].map((i) =>
    asObserved({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `podset-sample-${i}`, namespace: 'default' } }),
  );
  const res = sync(request('podset', { size: -2 }, { children: objectMap(pods) }), now);
  t.same(names(res.children), ['podset-sample-0', 'podset-sample-1']);
  t.match((res.status as any).conditions[0], { type: 'Ready', status: 'False', reason: 'InvalidSpec' });
});

t.test('an evicted (Failed) or completed pod is deleted and then recreated under its name, across syncs', async (t) => {
  // Sync 1: three pods, pod-1 evicted.
  const first = sync(request('podset', { size: 3 }), FIXED_NOW);
  const observedPods = first.children.map((c) => asObserved(c, readyPod));
  observedPods[1]!['status'] = { phase: 'Failed', reason: 'Evicted' };
  observedPods[2]!['status'] = { phase: 'Succeeded' };
  const parent = { ...request('podset', { size: 3 }).parent, status: first.status };
  const second = sync(request('podset', { size: 3 }, { parent, children: objectMap(observedPods) }), FIXED_NOW);
  t.same(
    second.children.map((c) => c.metadata.name),
    ['podset-sample-pod-0'],
    'the finished pods are left out, so they are deleted',
  );
  t.equal(second.status!['replicas'], 1, 'status counts only the live pod');
  t.same(second.status!['nodes'], ['podset-sample-pod-0']);
  // Sync 3: Metacontroller deleted them; they are terminating: still left out (the name is taken).
  const terminating = observedPods.map((p, i) =>
    i === 0 ? p : { ...p, metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } },
  );
  const third = sync(
    request('podset', { size: 3 }, { parent: { ...parent, status: second.status }, children: objectMap(terminating) }),
    FIXED_NOW,
  );
  t.same(
    third.children.map((c) => c.metadata.name),
    ['podset-sample-pod-0'],
    'while the finished pods terminate, their names stay out of the answer',
  );
  t.equal(third.status!['replicas'], 1);
  // Sync 4: gone: desired again, so Metacontroller creates them under their names.
  const fourth = sync(
    request(
      'podset',
      { size: 3 },
      { parent: { ...parent, status: third.status }, children: objectMap([observedPods[0]!]) },
    ),
    FIXED_NOW,
  );
  t.same(
    fourth.children.map((c) => c.metadata.name),
    ['podset-sample-pod-0', 'podset-sample-pod-1', 'podset-sample-pod-2'],
  );
  // A Running pod that is not Ready is kept (it may become Ready).
  const slow = first.children.map((c) => asObserved(c, { phase: 'Running' }));
  t.equal(sync(request('podset', { size: 3 }, { children: objectMap(slow) }), FIXED_NOW).children.length, 3);
});

t.test('pods missing past the progress deadline are said in the status, stably, until they exist', async (t) => {
  const { PROGRESS_DEADLINE_SECONDS } = await import('../../lib/replicas.js');
  const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
  // Sync 1: nothing exists yet (Metacontroller cannot create the pods: admission refuses them).
  const first = sync(request('podset', { size: 3 }), at(0));
  t.equal(first.resyncAfterSeconds, 60, 'while pods are missing, the hook asks to be called again');
  const cond = (r: any, type: string) => r.status.conditions.find((c: any) => c.type === type);
  t.match(cond(first, 'Progressing'), { status: 'True', reason: 'ScalingUp' });
  const feed = (prev: any, s: number) =>
    sync(
      request('podset', { size: 3 }, { parent: { ...request('podset', { size: 3 }).parent, status: prev.status } }),
      at(s),
    );
  const early = feed(first, PROGRESS_DEADLINE_SECONDS - 1);
  t.match(
    cond(early, 'Progressing'),
    { status: 'True', reason: 'ScalingUp' },
    'before the deadline: still progressing',
  );
  const late = feed(early, PROGRESS_DEADLINE_SECONDS + 1);
  t.match(cond(late, 'Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded' });
  t.match(cond(late, 'Ready'), {
    status: 'False',
    reason: 'ProgressDeadlineExceeded',
    message: /0 of 3 members exist/,
  });
  const later = feed(late, PROGRESS_DEADLINE_SECONDS + 3600);
  t.same(later.status, late.status, 'the same status on every later sync (quiet)');
  // The pods appear: back to normal.
  const pods = first.children.map((c) => asObserved(c, readyPod));
  const healed = sync(
    request(
      'podset',
      { size: 3 },
      { parent: { ...request('podset', { size: 3 }).parent, status: later.status }, children: objectMap(pods) },
    ),
    at(PROGRESS_DEADLINE_SECONDS + 3700),
  );
  t.match(cond(healed, 'Ready'), { status: 'True', reason: 'Available' });
  t.notOk(healed.resyncAfterSeconds, 'nothing missing: no extra resync');
});

t.test(
  "every pod whole: its labels, the seed's app label, restartPolicy Always; the status selects them",
  async (t) => {
    const res = sync(request('podset', { size: 1 }), now);
    const pod = res.children[0] as any;
    t.same(pod.metadata, {
      name: 'podset-sample-pod-0',
      namespace: 'default',
      labels: {
        'app.kubernetes.io/name': 'podset',
        'app.kubernetes.io/instance': 'podset-sample',
        'app.kubernetes.io/component': 'member',
        'app.kubernetes.io/managed-by': 'metaops',
        app: 'podset-sample',
        'metaops.dev/template-hash': (res.status as any).templateHash,
      },
    });
    t.match((res.status as any).templateHash, /^[0-9a-f]{10}$/, 'the template hash: 10 hex digits');
    t.equal(pod.spec.restartPolicy, 'Always');
    t.equal((res.status as any).selector, 'app.kubernetes.io/instance=podset-sample,app.kubernetes.io/name=podset');
  },
);

t.test('the answer a spec asks for is bounded: size times (~640 bytes, the image and each argument + 3)', async (t) => {
  // 512 pods of 640 + 4 (the `-pod` of its name) + 7 (busybox) + (4096 + 3) + (3437 + 3) = 8190 bytes and the pods'
  // NetworkPolicy's 1024: exactly the limit (a parent named '').
  t.equal(512 * 8190 + 1024, MAX_ANSWER_BYTES);
  const spec = (last: number) => ({ size: 512, image: 'busybox', command: ['x'.repeat(4096), 'y'.repeat(last)] });
  // The answer's bound alone: the bound of the sync requests its pods make once they run (answerBudget.request) is
  // tighter, and refuses every one of these first (test/podset/sync-request-bound-counts-what-comes-back.test.ts).
  const answerOnly = { ...answerBudget, request: undefined };
  const check = (s: Record<string, unknown>, name = '') => {
    const parsed = parser.parse(s);
    if (!parsed.ok) return parsed;
    const problem = answerBudgetProblem('PodSet', answerOnly, parsed.spec, { ...parent, metadata: { name } });
    return problem ? { ok: false, message: problem } : { ok: true };
  };
  const parent = request('podset', {}).parent;
  t.same(check(spec(3437)), { ok: true }, 'at the limit');
  t.same(check(spec(3438)), {
    ok: false,
    message:
      'spec.size 512 pods of ~8 KiB each (image and command) and a NetworkPolicy make an answer of ~4.0 MiB, more than the 4.0 MiB a ' +
      'PodSet may have: shorten spec.command or lower spec.size',
  });
  // The image counts as much as an argument's characters.
  t.same(check({ ...spec(3436), image: 'busybox2' }), { ok: true });
  t.equal(check({ ...spec(3436), image: 'busybox23' }).ok, false);
  // Each argument counts 3 bytes more than its characters.
  t.same(check({ ...spec(3437), command: ['x'.repeat(4096), 'y'.repeat(3434), ''] }), { ok: true });
  t.equal(check({ ...spec(3437), command: ['x'.repeat(4096), 'y'.repeat(3435), ''] }).ok, false);
  // The parent's name counts four times per pod (the pod's name and labels), and four times in the NetworkPolicy.
  t.same(check(spec(3432), 'a'), { ok: true });
  t.equal(check(spec(3433), 'a').ok, false);
  // The framework refuses it: InvalidSpec, the observed pods kept.
  const res = sync(request('podset', spec(3440)), now);
  t.match(res.status, { conditions: [{ type: 'Ready', reason: 'InvalidSpec', message: /more than the 4\.0 MiB/ }] });
});
