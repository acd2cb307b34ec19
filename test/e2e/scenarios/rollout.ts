// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor, E2E_RESYNC_SECONDS, type ControlPlane } from '../cluster.js';
import { Kubelet, type PodState } from '../kubelet.js';
import { secs, condition, type Scenario } from './common.js';

const NAME = 'roll';
const SIZE = 3;
const MEMBERS = Array.from({ length: SIZE }, (_, i) => `${NAME}-pod-${i}`);
const SELECTOR = `app.kubernetes.io/instance=${NAME}`;
/** Images the tiny kubelet cannot pull: their pods wait on ErrImagePull, as a typo'd tag would. */
const UNPULLABLE = new Set(['busybox:no-such-tag']);

/** The members that are missing or not Ready in one state the watch showed. */
const down = (s: PodState) => MEMBERS.filter((m) => !s.pods.get(m)?.ready);

/**
 * Follows a rollout through every change the watch shows: at most one member down at any time, and the order in
 * which members got a new pod (a new uid under their name).
 */
class RolloutLog {
  private from: number;
  constructor(private readonly kubelet: Kubelet) {
    this.from = kubelet.states.length;
  }

  /** States since this log started. */
  states(): PodState[] {
    return this.kubelet.states.slice(this.from);
  }

  /** The largest number of members down at once, and when. */
  worst(): { count: number; members: string[] } {
    let worst: string[] = [];
    for (const s of this.states()) if (down(s).length > worst.length) worst = down(s);
    return { count: worst.length, members: worst };
  }

  /** Members in the order they got a new pod (each time one did). */
  replaced(): string[] {
    const order: string[] = [];
    const states = this.states();
    let last = new Map<string, string>();
    const before = this.kubelet.states[this.from - 1];
    if (before) for (const [n, p] of before.pods) last.set(n, p.uid);
    for (const s of states) {
      const now = new Map<string, string>();
      for (const [n, p] of s.pods) now.set(n, p.uid);
      for (const [n, uid] of now) if (last.has(n) && last.get(n) !== uid) order.push(n);
      for (const [n, uid] of last) if (!now.has(n)) now.set(n, uid);
      last = now;
    }
    return order;
  }
}

async function podset(k: ControlPlane) {
  return k.json(['get', 'podset', NAME]);
}

/** Waits until every member runs `image` and is Ready, and the status says Updated=True for the current generation. */
async function rolledOut(k: ControlPlane, kubelet: Kubelet, image: string, timeoutMs = 90_000) {
  return waitFor(
    `every pod on ${image}, Ready, Updated=True`,
    async () => {
      const s = kubelet.latest();
      if (!s || !MEMBERS.every((m) => s.pods.get(m)?.ready && s.pods.get(m)?.image === image)) return undefined;
      const p = await podset(k);
      const updated = condition(p, 'Updated');
      return updated?.status === 'True' &&
        updated.observedGeneration === p.metadata.generation &&
        p.status.updatedReplicas === SIZE &&
        p.status.ready === `${SIZE}/${SIZE}`
        ? p
        : undefined;
    },
    timeoutMs,
  );
}

async function setImage(k: ControlPlane, image: string): Promise<number> {
  await k.kubectl(['patch', 'podset', NAME, '--type=merge', '-p', JSON.stringify({ spec: { image } })]);
  return Date.now();
}

/** The uids of the members now. */
function uids(kubelet: Kubelet): string[] {
  const s = kubelet.latest()!;
  return MEMBERS.map((m) => s.pods.get(m)?.uid ?? '-');
}

export const rollout: Scenario = {
  name:
    'PodSet rollout: an image change replaces one pod at a time with the others Ready; an invalid image replaces ' +
    'nothing; an image that cannot be pulled stops after one pod and says why, its revert heals; the same with ' +
    'Metacontroller killed mid-rollout',
  async run(k) {
    const notes: string[] = [];
    const kubelet = new Kubelet(k, { selector: SELECTOR, pullable: (image) => !UNPULLABLE.has(image) });
    kubelet.start();
    try {
      let t0 = Date.now();
      await k.kubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'apps.jicki.cn/v1alpha1',
          kind: 'PodSet',
          metadata: { name: NAME },
          spec: { size: SIZE },
        }),
      );
      const first = await rolledOut(k, kubelet, 'busybox');
      notes.push(`${SIZE} pods Ready on template ${first.status.templateHash} in ${secs(t0)}`);

      // 1. An image change: one pod at a time, the others Ready throughout.
      let log = new RolloutLog(kubelet);
      t0 = await setImage(k, 'busybox:1.36');
      const done = await rolledOut(k, kubelet, 'busybox:1.36');
      assert.deepEqual(
        log.replaced(),
        [`${NAME}-pod-2`, `${NAME}-pod-1`, `${NAME}-pod-0`],
        'each member replaced once, in turn',
      );
      assert.ok(log.worst().count <= 1, `at most one member down at any change: ${log.worst().members}`);
      assert.notEqual(done.status.templateHash, first.status.templateHash);
      notes.push(
        `image busybox -> busybox:1.36: ${log.replaced().join(', ')} replaced one at a time in ${secs(t0)}, ` +
          `${log.states().length} pod changes watched, never more than ${log.worst().count} member down`,
      );
      const table = await k.kubectl(['get', 'podset', NAME]);
      assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'SIZE', 'READY', 'UP-TO-DATE', 'STATUS', 'AGE']);
      assert.match(table.split('\n')[1]!, new RegExp(`^${NAME}\\s+3\\s+3/3\\s+3\\s+Available\\s`));

      // 2. An invalid image: InvalidSpec, nothing replaced; its revert clears it.
      const before = uids(kubelet);
      t0 = await setImage(k, 'busybox:1.36 ');
      const invalid = await waitFor('Ready=False InvalidSpec naming spec.image', async () => {
        const p = await podset(k);
        const ready = condition(p, 'Ready');
        return ready?.reason === 'InvalidSpec' && ready.observedGeneration === p.metadata.generation ? p : undefined;
      });
      assert.match(condition(invalid, 'Ready').message, /spec\.image/);
      await k.moreSyncs('podset/sync', NAME, 2, k.syncsOf('podset/sync', NAME));
      assert.deepEqual(uids(kubelet), before, 'no pod replaced for an invalid image');
      assert.equal(kubelet.latest()!.pods.size, SIZE);
      notes.push(`invalid image "busybox:1.36 ": ${condition(invalid, 'Ready').message}; no pod replaced`);
      await setImage(k, 'busybox:1.36');
      await waitFor('Ready=True after the revert', async () => condition(await podset(k), 'Ready')?.status === 'True');
      assert.deepEqual(uids(kubelet), before, 'the revert replaced nothing either');

      // 3. An image that cannot be pulled: one pod replaced, then the rollout waits and says why; the revert heals.
      notes.push(...(await stuckThenReverted(k, kubelet, false)));

      // 4. Metacontroller killed mid-rollout: the rollout goes on once it is back, still one pod at a time.
      log = new RolloutLog(kubelet);
      t0 = await setImage(k, 'busybox:1.37');
      await waitFor(
        'the first member replaced and Ready',
        async () =>
          kubelet.latest()?.pods.get(`${NAME}-pod-2`)?.image === 'busybox:1.37' &&
          !!kubelet.latest()?.pods.get(`${NAME}-pod-2`)?.ready,
      );
      await k.killMetacontroller();
      const killedAt = Date.now();
      const during = new RolloutLog(kubelet);
      await new Promise((r) => setTimeout(r, 3000));
      assert.deepEqual(during.replaced(), [], 'nothing replaced while Metacontroller is down');
      k.startMetacontroller();
      await rolledOut(k, kubelet, 'busybox:1.37');
      assert.deepEqual(
        log.replaced(),
        [`${NAME}-pod-2`, `${NAME}-pod-1`, `${NAME}-pod-0`],
        'each member replaced once, in turn',
      );
      assert.ok(log.worst().count <= 1, `at most one member down at any change: ${log.worst().members}`);
      notes.push(
        `Metacontroller killed (SIGKILL) after ${NAME}-pod-2 was replaced, started 3 s later: the rollout finished ` +
          `${secs(killedAt)} after the kill, never more than ${log.worst().count} member down`,
      );

      // 5. The same stuck rollout, with Metacontroller killed while it waits.
      notes.push(...(await stuckThenReverted(k, kubelet, true)));

      notes.push(await k.assertQuiet({ parents: [`podsets/${NAME}`], hooks: ['podset/sync'] }));
      assert.deepEqual(kubelet.errors, [], 'the kubelet reported every pod');
      await k.kubectl(['delete', 'podset', NAME, '--wait=true']);
      return notes;
    } finally {
      await kubelet.stop();
    }
  },
};

/** An unpullable image: one pod down, the rollout waits and says so; (Metacontroller killed meanwhile); revert. */
async function stuckThenReverted(k: ControlPlane, kubelet: Kubelet, kill: boolean): Promise<string[]> {
  const notes: string[] = [];
  const good = kubelet.latest()!.pods.get(`${NAME}-pod-0`)!.image;
  const log = new RolloutLog(kubelet);
  await setImage(k, 'busybox:no-such-tag');
  const waiting = await waitFor('Updated=False RolloutWaiting on ImagePullBackOff', async () => {
    const p = await podset(k);
    const updated = condition(p, 'Updated');
    return updated?.reason === 'RolloutWaiting' && /ImagePullBackOff/.test(updated.message) ? p : undefined;
  });
  assert.match(
    condition(waiting, 'Updated').message,
    new RegExp(
      `^1 of 3 pods on template \\w+; next to replace: ${NAME}-pod-1; waiting for ${NAME}-pod-2 \\(current template\\) to be Ready: ImagePullBackOff$`,
    ),
  );
  assert.equal(waiting.status.ready, '2/3');
  if (kill) {
    await k.killMetacontroller();
    await new Promise((r) => setTimeout(r, 2000));
    k.startMetacontroller();
  }
  // Syncs go on (each pod change, the controller's resync): none replaces another pod.
  await k.moreSyncs('podset/sync', NAME, 2, k.syncsOf('podset/sync', NAME));
  assert.deepEqual(log.replaced(), [`${NAME}-pod-2`], 'only the first member was replaced');
  assert.ok(log.worst().count <= 1, `at most one member down: ${log.worst().members}`);
  notes.push(
    `image busybox:no-such-tag${kill ? ' (Metacontroller killed and restarted while it waits)' : ''}: one pod ` +
      `replaced, then waiting: ${condition(waiting, 'Updated').message}`,
  );
  const t0 = await setImage(k, good);
  await waitFor(
    `${NAME}-pod-2 replaced again after the revert`,
    async () => log.replaced().length === 2,
    E2E_RESYNC_SECONDS * 1000,
  );
  const deletedIn = Date.now() - t0;
  await rolledOut(k, kubelet, good);
  assert.deepEqual(
    log.replaced(),
    [`${NAME}-pod-2`, `${NAME}-pod-2`],
    'the revert replaced only the pod on the bad image',
  );
  notes.push(
    `revert to ${good}: the bad pod replaced ${(deletedIn / 1000).toFixed(1)}s after the revert, healed in ${secs(t0)}`,
  );
  return notes;
}

/**
 * A replacement the API server refuses (a ResourceQuota lowered under a running PodSet): the rollout deletes the
 * one pod it replaces, the new one cannot be created, and nothing more is replaced; the status says what it waits
 * for and that `kubectl get events` says why, which it does (Metacontroller's SyncError on the PodSet). Once the
 * quota allows it, the rollout finishes.
 */
export const rolloutBlocked: Scenario = {
  name: 'PodSet rollout whose replacement cannot be created (a quota): one pod short and no more, the status sends the user to kubectl get events, which says why; the rollout finishes once the quota allows',
  async run(k) {
    const notes: string[] = [];
    const ns = 'quota';
    await k.kubectl(['create', 'namespace', ns]);
    const kubelet = new Kubelet(k, { namespace: ns, selector: 'app.kubernetes.io/instance=q' });
    kubelet.start();
    try {
      await k.kubectl(
        ['apply', '-n', ns, '-f', '-'],
        JSON.stringify({
          apiVersion: 'apps.jicki.cn/v1alpha1',
          kind: 'PodSet',
          metadata: { name: 'q' },
          spec: { size: 2 },
        }),
      );
      const get = () => k.json(['get', 'podset', '-n', ns, 'q']);
      await waitFor('2 pods Ready', async () => (await get()).status?.ready === '2/2');
      const quota = (pods: number) =>
        k.kubectl(
          ['apply', '-n', ns, '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ResourceQuota',
            metadata: { name: 'pods' },
            spec: { hard: { pods: String(pods) } },
          }),
        );
      await quota(1);
      await waitFor(
        'the quota counted',
        async () => (await k.json(['get', 'resourcequota', '-n', ns, 'pods'])).status?.used?.pods === '2',
      );
      const t0 = Date.now();
      await k.kubectl(['patch', 'podset', '-n', ns, 'q', '--type=merge', '-p', '{"spec":{"image":"busybox:1.36"}}']);
      const waiting = await waitFor('Updated=False waiting for q-pod-1 to be created', async () => {
        const p = await get();
        const updated = condition(p, 'Updated');
        return updated?.reason === 'RolloutWaiting' && /waiting for q-pod-1 to be created/.test(updated.message)
          ? p
          : undefined;
      });
      const message = condition(waiting, 'Updated').message as string;
      assert.match(message, /\(if it stays missing, kubectl get events says why\)$/);
      // What the message says: kubectl get events.
      const events = await waitFor('kubectl get events to say why', async () => {
        const text = await k.kubectl(['get', 'events', '-n', ns]);
        return /exceeded quota/.test(text) && /q-pod-1/.test(text) ? text : undefined;
      });
      const line = events.split('\n').find((l) => /exceeded quota/.test(l))!;
      await k.moreSyncs('podset/sync', 'q', 2, k.syncsOf('podset/sync', 'q', ns), ns);
      assert.equal(kubelet.latest()!.pods.size, 1, 'one pod short, and no more');
      assert.equal(
        kubelet.latest()!.pods.get('q-pod-0')?.image,
        'busybox',
        'q-pod-0 not replaced while q-pod-1 cannot be made',
      );
      notes.push(`replacement refused by the quota: ${message}`);
      notes.push(`kubectl get events: ${line.replace(/\s+/g, ' ').slice(0, 240)}`);
      await quota(2);
      await waitFor(
        'the rollout finished once the quota allows',
        async () => {
          const p = await get();
          return condition(p, 'Updated')?.status === 'True' && p.status.ready === '2/2' ? p : undefined;
        },
        90_000,
      );
      notes.push(`quota raised: the rollout finished ${secs(t0)} after the image change`);
      await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
      return notes;
    } finally {
      await kubelet.stop();
    }
  },
};
