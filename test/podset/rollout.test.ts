// PodSet rolls its own pods (hooks/podset/rollout.ts): one outdated pod at a time, chosen from the template hash each
// pod carries and whether it is Ready, with Metacontroller doing only what OnDelete does: create the pods the answer
// names that do not exist, delete the ones it leaves out, change none in place.
import t from 'tap';
import {
  isCurrent,
  notReadyReason,
  planRollout,
  TEMPLATE_HASH_LABEL,
  templateHash,
} from '../../hooks/podset/rollout.js';
import { podsetPodsSync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

type Spec = Record<string, unknown>;
const cond = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);
const names = (children: KubeObject[]) => children.map((c) => c.metadata.name);
const image = (pod: KubeObject) => (pod as any).spec.containers[0].image as string;

/** A pod as Metacontroller creates it from an answer: the last-applied annotation, then what the kubelet reports. */
function created(desired: KubeObject, status: Record<string, unknown>): KubeObject {
  const pod = asObserved(desired, status);
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(desired) };
  pod.metadata.uid = `uid-${desired.metadata.name}-${(desired as any).spec.containers[0].image}`;
  return pod;
}

/**
 * Metacontroller with OnDelete and a kubelet: the answer's pods that do not exist are created (Pending), the observed
 * pods it leaves out are deleted, nothing is changed in place; then the kubelet makes each Pending pod Ready, or
 * leaves it waiting with `reason` when `pulls` says its image cannot be pulled.
 */
class World {
  pods = new Map<string, KubeObject>();
  status: Record<string, unknown> | undefined = undefined;
  answers: CompositeSyncResponse[] = [];
  /** After each sync: the members that were not Ready or missing (the invariant: at most one). */
  down: string[][] = [];
  replaced: string[] = [];
  constructor(
    public spec: Spec,
    public pulls: (image: string) => boolean = () => true,
  ) {}

  static settled(spec: Spec): World {
    const w = new World(spec);
    for (let i = 0; i < 4; i++) w.step();
    return w;
  }

  sync(): CompositeSyncResponse {
    const parent = { ...request('podset', this.spec).parent, status: this.status };
    const res = sync(
      request('podset', this.spec, { parent, children: objectMap([...this.pods.values()], 'v2') }),
      FIXED_NOW,
    );
    this.status = res.status ?? undefined;
    this.answers.push(res);
    return res;
  }

  /** One sync, Metacontroller applying its answer, and the kubelet. */
  step(): CompositeSyncResponse {
    const res = this.sync();
    const wanted = new Map(res.children.map((c) => [c.metadata.name!, c]));
    for (const name of [...this.pods.keys()]) {
      if (!wanted.has(name)) {
        this.pods.delete(name);
        this.replaced.push(name);
      }
    }
    for (const [name, desired] of wanted)
      if (!this.pods.has(name)) this.pods.set(name, created(desired, { phase: 'Pending' }));
    for (const [name, pod] of this.pods) {
      if ((pod as any).status.phase !== 'Pending') continue;
      const ok = this.pulls(image(pod));
      const status = ok
        ? readyPod
        : {
            phase: 'Pending',
            containerStatuses: [{ name: 'busybox', ready: false, state: { waiting: { reason: 'ErrImagePull' } } }],
          };
      this.pods.set(name, { ...pod, status });
    }
    const size = this.spec['size'] as number;
    const down: string[] = [];
    for (let i = 0; i < size; i++) {
      const pod = this.pods.get(`podset-sample-pod-${i}`);
      if (!pod || (pod as any).status.phase !== 'Running') down.push(`podset-sample-pod-${i}`);
    }
    this.down.push(down);
    return res;
  }

  images(): string[] {
    return [...this.pods.values()].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1)).map(image);
  }
}

t.test(
  'a changed image replaces the pods one at a time, highest ordinal first, each once the others are Ready',
  async (t) => {
    const w = World.settled({ size: 3 });
    t.same(w.images(), ['busybox', 'busybox', 'busybox']);
    t.same(w.down.at(-1), [], 'settled: every member Ready');
    w.replaced = [];
    w.down = [];
    w.spec = { size: 3, image: 'busybox:1.36' };
    const first = w.sync();
    t.same(
      names(first.children),
      ['podset-sample-pod-0', 'podset-sample-pod-1'],
      'only -2 is left out: Metacontroller deletes it',
    );
    t.match(cond(first, 'Updated'), {
      status: 'False',
      reason: 'RollingOut',
      message: /^0 of 3 pods on template [0-9a-f]{10}; replacing podset-sample-pod-2 \(outdated\), one pod at a time$/,
    });
    t.equal(first.resyncAfterSeconds, 30, 'a rollout looks again on its own');
    t.equal((first.status as any).updatedReplicas, 0);
    t.match(cond(first, 'Progressing'), { status: 'True', reason: 'Updating', message: '0 of 3 members updated' });
    for (const kept of first.children)
      t.equal(image(kept), 'busybox', `${kept.metadata.name}: kept as it is until its turn`);
    for (let i = 0; i < 12; i++) w.step();
    t.same(
      w.replaced,
      ['podset-sample-pod-2', 'podset-sample-pod-1', 'podset-sample-pod-0'],
      'each replaced once, in that order',
    );
    t.same(w.images(), ['busybox:1.36', 'busybox:1.36', 'busybox:1.36']);
    for (const [i, down] of w.down.entries())
      t.ok(down.length <= 1, `after sync ${i + 1}, at most one member down: ${down}`);
    const last = w.answers.at(-1)!;
    t.match(cond(last, 'Updated'), {
      status: 'True',
      reason: 'UpToDate',
      message: /^every pod is made from template /,
    });
    t.equal((last.status as any).updatedReplicas, 3);
    t.match(cond(last, 'Ready'), { status: 'True' });
    t.notOk(last.resyncAfterSeconds, 'at rest: no extra resync');
    t.same(w.answers.at(-1), w.answers.at(-2), 'then the same answer at every sync');
  },
);

t.test('a replacement not Ready stops the rollout and says why; the revert heals it at the next sync', async (t) => {
  const w = World.settled({ size: 3 });
  w.pulls = (img) => img !== 'busybox:nope';
  w.replaced = [];
  w.spec = { size: 3, image: 'busybox:nope' };
  for (let i = 0; i < 10; i++) w.step();
  t.same(w.replaced, ['podset-sample-pod-2'], 'one pod replaced, then nothing more');
  t.same(w.images(), ['busybox', 'busybox', 'busybox:nope']);
  const stuck = w.answers.at(-1)!;
  t.match(cond(stuck, 'Updated'), {
    status: 'False',
    reason: 'RolloutWaiting',
    message:
      /^1 of 3 pods on template \w+; next to replace: podset-sample-pod-1; waiting for podset-sample-pod-2 \(current template\) to be Ready: ImagePullBackOff$/,
  });
  t.equal((stuck.status as any).ready, '2/3');
  t.same(w.answers.at(-1), w.answers.at(-2), 'waiting is quiet: the same answer at each sync');
  // The revert: -0 and -1 are current again, -2 outdated and not Ready: replaced by the very next sync.
  w.spec = { size: 3 };
  const healed = w.step();
  t.same(names(healed.children), ['podset-sample-pod-0', 'podset-sample-pod-1'], 'the next sync replaces -2');
  w.step();
  t.same(w.images(), ['busybox', 'busybox', 'busybox']);
  t.same(w.replaced, ['podset-sample-pod-2', 'podset-sample-pod-2']);
  const done = w.step();
  t.match(cond(done, 'Updated'), { status: 'True' });
  t.equal((done.status as any).ready, '3/3');
});

t.test(
  'pods that are not Ready and outdated go first; the new template is proven on one before the next',
  async (t) => {
    // Three pods crash on the old command; the command is fixed.
    const w = World.settled({ size: 3, command: ['false'] });
    for (const [name, pod] of w.pods) w.pods.set(name, { ...pod, status: { phase: 'Running' } });
    w.replaced = [];
    w.down = [];
    w.spec = { size: 3, command: ['sleep', '3600'] };
    w.pulls = () => true;
    const first = w.sync();
    t.match(cond(first, 'Updated'), {
      reason: 'RollingOut',
      message: /replacing podset-sample-pod-2 \(outdated, not Ready\)/,
    });
    for (let i = 0; i < 10; i++) w.step();
    t.same(
      w.replaced,
      ['podset-sample-pod-2', 'podset-sample-pod-1', 'podset-sample-pod-0'],
      'all three, one at a time',
    );
    t.same(w.down.at(-1), []);

    // One not Ready among Ready ones: that one first, whatever its ordinal.
    const v = World.settled({ size: 3 });
    v.pods.set('podset-sample-pod-0', { ...v.pods.get('podset-sample-pod-0')!, status: { phase: 'Running' } });
    v.spec = { size: 3, image: 'busybox:1.36' };
    t.same(
      names(v.sync().children),
      ['podset-sample-pod-1', 'podset-sample-pod-2'],
      '-0 (not Ready) is replaced first',
    );
  },
);

t.test('an outdated Ready pod waits while another member is not Ready', async (t) => {
  // -1 runs the new template and is not Ready yet; -0 and -2 are outdated and Ready.
  const w = World.settled({ size: 3 });
  const one = w.pods.get('podset-sample-pod-1')!;
  w.spec = { size: 3, image: 'busybox:1.36' };
  const fresh = sync(request('podset', w.spec), FIXED_NOW).children[1]!;
  w.pods.set('podset-sample-pod-1', created(fresh, { phase: 'Running' }));
  const res = w.sync();
  t.same(
    names(res.children),
    ['podset-sample-pod-0', 'podset-sample-pod-1', 'podset-sample-pod-2'],
    'nothing left out',
  );
  t.match(cond(res, 'Updated'), {
    reason: 'RolloutWaiting',
    message: /next to replace: podset-sample-pod-2; waiting for podset-sample-pod-1 \(current template\) to be Ready$/,
  });
  t.ok(one, 'the old -1 existed');
});

t.test('nothing is replaced while a member is missing, being deleted or finished', async (t) => {
  const settled = World.settled({ size: 3 });
  const spec = { size: 3, image: 'busybox:1.36' };
  const cases: Array<[string, (pods: Map<string, KubeObject>) => void, RegExp]> = [
    [
      'missing',
      (pods) => pods.delete('podset-sample-pod-0'),
      /waiting for podset-sample-pod-0 to be created \(if it stays missing, kubectl get events says why\)$/,
    ],
    [
      'being deleted',
      (pods) => {
        const p = pods.get('podset-sample-pod-0')!;
        pods.set('podset-sample-pod-0', {
          ...p,
          metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
        });
      },
      /waiting for podset-sample-pod-0 to be deleted and made again$/,
    ],
    [
      'finished',
      (pods) =>
        pods.set('podset-sample-pod-0', {
          ...pods.get('podset-sample-pod-0')!,
          status: { phase: 'Failed', reason: 'Evicted' },
        }),
      /waiting for podset-sample-pod-0 to be deleted and made again$/,
    ],
  ];
  for (const [what, change, message] of cases) {
    const pods = new Map(settled.pods);
    change(pods);
    const res = sync(request('podset', spec, { children: objectMap([...pods.values()]) }), FIXED_NOW);
    t.same(
      names(res.children).filter((n) => n !== 'podset-sample-pod-0'),
      ['podset-sample-pod-1', 'podset-sample-pod-2'],
      `${what}: -1 and -2 kept`,
    );
    t.match(cond(res, 'Updated'), { status: 'False', reason: 'RolloutWaiting', message }, what);
    t.match(cond(res, 'Updated').message, /next to replace: podset-sample-pod-2; /, `${what}: the next is a live pod`);
    for (const c of res.children.filter((c) => c.metadata.name !== 'podset-sample-pod-0'))
      t.equal(image(c), 'busybox', `${what}: ${c.metadata.name} as it is`);
  }
});

t.test('outdated pods are answered as Metacontroller last applied them: their own template, unchanged', async (t) => {
  const w = World.settled({ size: 2 });
  const before = w.pods.get('podset-sample-pod-0')!;
  w.spec = { size: 2, image: 'busybox:1.36' };
  const res = w.sync();
  const kept = res.children.find((c) => c.metadata.name === 'podset-sample-pod-0')!;
  t.same(kept, JSON.parse(before.metadata.annotations![LAST_APPLIED]!), 'the last-applied configuration, as it is');
});

t.test('the template hash: on every pod, a function of the template alone', async (t) => {
  const hashOf = (spec: Spec) => (sync(request('podset', spec), FIXED_NOW).status as any).templateHash as string;
  const base = hashOf({ size: 3 });
  t.equal(hashOf({ size: 7 }), base, 'the size is not part of the template');
  t.equal(hashOf({ size: 3, image: 'busybox', command: ['sleep', '3600'] }), base, 'defaults are the template');
  t.not(hashOf({ size: 3, image: 'busybox:1.36' }), base, 'the image is');
  t.not(hashOf({ size: 3, command: ['sleep', '3601'] }), base, 'the command is');
  t.not(hashOf({ size: 3, command: ['sleep', '3600', ''] }), base, 'every argument is');
  const res = sync(request('podset', { size: 2 }), FIXED_NOW);
  for (const pod of res.children) t.equal(pod.metadata.labels![TEMPLATE_HASH_LABEL], base);
  t.equal(templateHash({ a: 'b' }, { c: 1 }), templateHash({ a: 'b' }, { c: 1 }));
  t.not(templateHash({ a: 'b' }, { c: 1 }), templateHash({ a: 'c' }, { c: 1 }), 'the labels are part of it');
});

t.test('pods from before the hash: current when they run the spec image and command, replaced otherwise', async (t) => {
  const legacy = (i: number, img: string, command: unknown) =>
    asObserved(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `podset-sample-${i}`, namespace: 'default', labels: { app: 'podset-sample' } },
        spec: { containers: [{ name: 'busybox', image: img, command }] },
      },
      readyPod,
    );
  const pods = [0, 1, 2].map((i) => legacy(i, 'busybox', ['sleep', '3600']));
  const same = sync(request('podset', { size: 3 }, { children: objectMap(pods) }), FIXED_NOW);
  t.equal(same.children.length, 3, 'an upgrade of metaops replaces nothing');
  t.match(cond(same, 'Updated'), { status: 'True' });
  t.equal((same.status as any).updatedReplicas, 3);
  const changed = sync(request('podset', { size: 3, image: 'busybox:1.36' }, { children: objectMap(pods) }), FIXED_NOW);
  t.same(names(changed.children), ['podset-sample-0', 'podset-sample-1'], 'a changed image rolls them');

  const hash = 'abc';
  const spec = { image: 'busybox', command: ['sleep', '3600'] };
  t.ok(isCurrent(legacy(0, 'busybox', ['sleep', '3600']), hash, spec));
  t.notOk(isCurrent(legacy(0, 'busybox:1', ['sleep', '3600']), hash, spec), 'another image');
  t.notOk(isCurrent(legacy(0, 'busybox', ['sleep', '360']), hash, spec), 'another argument');
  t.notOk(isCurrent(legacy(0, 'busybox', ['sleep']), hash, spec), 'fewer arguments');
  t.notOk(isCurrent(legacy(0, 'busybox', ['sleep', '3600', 'x']), hash, spec), 'more arguments');
  t.notOk(isCurrent(legacy(0, 'busybox', 'sleep 3600'), hash, spec), 'a command that is not a list');
  const two = legacy(0, 'busybox', ['sleep', '3600']);
  (two as any).spec.containers.push({ name: 'sidecar', image: 'busybox', command: ['sleep', '3600'] });
  t.notOk(isCurrent(two, hash, spec), 'two containers');
  const none = legacy(0, 'busybox', ['sleep', '3600']);
  (none as any).spec.containers = [null];
  t.notOk(isCurrent(none, hash, spec), 'a malformed container');
  t.notOk(isCurrent({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } }, hash, spec), 'no spec');
  const nullLabels = legacy(0, 'busybox', ['sleep', '3600']);
  (nullLabels.metadata as any).labels = null;
  t.ok(isCurrent(nullLabels, hash, spec), 'labels null: read as none');
  (nullLabels.metadata as any).labels = 'x';
  t.ok(isCurrent(nullLabels, hash, spec), 'labels a string: read as none');
  const undef = legacy(0, 'busybox', ['sleep', '3600']);
  (undef as any).spec.containers = [undefined];
  t.notOk(isCurrent(undef, hash, spec), 'an undefined container');
  const labelled = legacy(0, 'busybox', ['sleep', '3600']);
  labelled.metadata.labels![TEMPLATE_HASH_LABEL] = 'other';
  t.notOk(isCurrent(labelled, hash, spec), 'a hash label decides, whatever the container runs');
  labelled.metadata.labels![TEMPLATE_HASH_LABEL] = hash;
  t.ok(isCurrent(labelled, hash, spec));
});

t.test(
  'scaling during a rollout: pods beyond the size go, missing ones are made, one replacement at a time',
  async (t) => {
    const w = World.settled({ size: 4 });
    w.replaced = [];
    w.down = [];
    w.spec = { size: 2, image: 'busybox:1.36' };
    const first = w.sync();
    t.same(names(first.children), ['podset-sample-pod-0'], '-2 and -3 go (scale down), -1 is the one replaced');
    w.spec = { size: 5, image: 'busybox:1.36' };
    for (let i = 0; i < 12; i++) w.step();
    t.same(w.images(), Array(5).fill('busybox:1.36'));
    const up = w.answers.at(-1)!;
    t.match(cond(up, 'Updated'), { status: 'True' });
  },
);

t.test('an invalid spec replaces nothing and says why', async (t) => {
  const w = World.settled({ size: 3 });
  w.spec = { size: 3, command: [] };
  const res = w.step();
  t.equal(res.children.length, 3, 'every pod kept');
  t.same(w.images(), ['busybox', 'busybox', 'busybox']);
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'InvalidSpec', message: /command/ });
});

t.test('planRollout on its own: counts, and nothing to do without outdated pods', async (t) => {
  const live = (name: string, current: boolean, ready: boolean) => ({ name, state: 'live' as const, current, ready });
  const none = planRollout([], 'h');
  t.same(none, {
    updated: 0,
    outdated: 0,
    condition: { type: 'Updated', status: true, reason: 'UpToDate', message: 'every pod is made from template h' },
  });
  const scaling = planRollout([live('a-0', true, true), { name: 'a-1', state: 'absent' }], 'h');
  t.equal(scaling.replace, undefined);
  t.equal(scaling.updated, 1);
  t.match(scaling.condition, { status: true });
  const mixed = planRollout([live('a-0', false, true), live('a-1', true, true), live('a-2', false, true)], 'h');
  t.same(mixed.replace, 'a-2');
  t.equal(mixed.updated, 1);
  t.equal(mixed.outdated, 2);
  t.equal(mixed.condition.message, '1 of 3 pods on template h; replacing a-2 (outdated), one pod at a time');
});

t.test('planRollout: a candidate whose replacement would not be made is not replaced, and it says why', async (t) => {
  const live = (name: string, current: boolean, ready: boolean) => ({ name, state: 'live' as const, current, ready });
  const members = [live('a-0', false, true), live('a-1', true, true), live('a-2', false, true)];
  const asked: string[] = [];
  const held = planRollout(members, 'h', (candidate) => {
    asked.push(candidate.name);
    return 'no room';
  });
  t.equal(held.replace, undefined, 'nothing replaced');
  t.same(asked, ['a-2'], 'asked of the candidate');
  t.same(held.condition, {
    type: 'Updated',
    status: false,
    reason: 'RolloutWaiting',
    message: '1 of 3 pods on template h; next to replace: a-2; not replaced: no room',
  });
  t.equal(planRollout(members, 'h', () => undefined).replace, 'a-2', 'replaced when nothing blocks it');
});

t.test('why a pod is not Ready: a crash loop says CrashLoopBackOff between back-offs too', async (t) => {
  const pod = (state: unknown) =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'busybox', ready: false, restartCount: 3, state, lastState: { terminated: { exitCode: 1 } } },
        ],
      },
    }) as KubeObject;
  t.equal(notReadyReason(pod({ waiting: { reason: 'CrashLoopBackOff' } })), ': CrashLoopBackOff');
  t.equal(notReadyReason(pod({ running: { startedAt: 'x' } })), ': CrashLoopBackOff', 'running again, not Ready');
  t.equal(notReadyReason(pod({ waiting: { reason: 'ErrImagePull' } })), ': ImagePullBackOff');
});

t.test("why a pod is not Ready: its first waiting container's reason, or its phase", async (t) => {
  const pod = (status: unknown) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status }) as KubeObject;
  t.equal(notReadyReason(undefined), '');
  t.equal(notReadyReason(pod(undefined)), '');
  t.equal(notReadyReason(pod({ phase: 'Pending' })), ': phase Pending');
  t.equal(notReadyReason(pod({ phase: 'Running' })), '', 'Running and not Ready: nothing more to say');
  t.equal(
    notReadyReason(
      pod({
        phase: 'Running',
        containerStatuses: [null, { state: { running: {} } }, { state: { waiting: { reason: 'CrashLoopBackOff' } } }],
      }),
    ),
    ': CrashLoopBackOff',
  );
  t.equal(
    notReadyReason(pod({ phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'bad reason!' } } }] })),
    ': phase Pending',
    'a reason that is not one word is not copied',
  );
  t.equal(notReadyReason(pod({ phase: 'x'.repeat(33) })), '', 'nor a phase that is not one');
  t.equal(notReadyReason(pod({ phase: 7, containerStatuses: 'x' })), '');
  t.equal(
    notReadyReason(pod({ phase: 'Pending', containerStatuses: [{}, { state: {} }, { state: { waiting: {} } }] })),
    ': phase Pending',
    'statuses without a state, or waiting without a reason',
  );
  for (const reason of ['1Err', 'Err Pull', 'Err_Pull', 'Err-Pull', '', 'E'.repeat(65)])
    t.equal(
      notReadyReason(pod({ containerStatuses: [{ state: { waiting: { reason } } }] })),
      '',
      `not one word of at most 64: ${JSON.stringify(reason)}`,
    );
  t.equal(
    notReadyReason(pod({ containerStatuses: [{ state: { waiting: { reason: 'E'.repeat(64) } } }] })),
    `: ${'E'.repeat(64)}`,
  );
  t.equal(notReadyReason(pod({ containerStatuses: [{ state: { waiting: { reason: 'E2' } } }] })), ': E2');
  for (const phase of ['', 'Pen ding', 'P'.repeat(33)])
    t.equal(notReadyReason(pod({ phase })), '', JSON.stringify(phase));
  t.equal(notReadyReason(pod({ phase: 'P'.repeat(32) })), `: phase ${'P'.repeat(32)}`);
});
