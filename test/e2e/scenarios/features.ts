// The Metacontroller behaviours metaops relies on (docs/metacontroller.md), each exercised on its own where no
// operator's walkthrough shows it plainly: generated selectors, adoption, the update strategies, authorization and
// resyncs the hook asks for. (test/e2e/run.ts runs them on every release.)
import assert from 'node:assert/strict';
import { operators } from '../../../main/operators.js';
import { renderController } from '../../../scripts/render-manifests.js';
import { PRODUCTION_AUTHORIZATION } from '../../../lib/manifests.js';
import { waitFor, type ControlPlane } from '../cluster.js';
import { Kubelet } from '../kubelet.js';
import { secs, type Scenario } from './common.js';

const ns = 'features';

async function ensureNamespace(k: ControlPlane): Promise<void> {
  if (!(await k.getOrUndefined(['namespace', ns]))) await k.kubectl(['create', 'namespace', ns]);
}

async function apply(k: ControlPlane, obj: Record<string, unknown>): Promise<void> {
  await k.kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify(obj));
}

const podset = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apps.jicki.cn/v1alpha1',
  kind: 'PodSet',
  metadata: { name },
  spec,
});

/** The live children of a parent: objects of `types` whose controller reference is its uid. */
async function childrenOf(k: ControlPlane, uid: string, types: string): Promise<any[]> {
  const all = (await k.json(['get', '-n', ns, types])).items as any[];
  return all.filter(
    (o) => !o.metadata.deletionTimestamp && o.metadata.ownerReferences?.some((r: any) => r.uid === uid && r.controller),
  );
}

export const generatedSelector: Scenario = {
  name: 'Metacontroller generateSelector: every child carries controller-uid=<parent uid> and is selected by it; a pod with the same labels but not that one is not taken',
  async run(k) {
    const notes: string[] = [];
    await ensureNamespace(k);
    const t0 = Date.now();
    await apply(k, podset('sel', { size: 2 }));
    await apply(k, {
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: 'sel' },
      spec: { size: 1 },
    });
    const ps = await waitFor('the PodSet with a uid', () => k.getOrUndefined(['-n', ns, 'podset', 'sel']));
    const mc = await waitFor('the Memcached with a uid', () => k.getOrUndefined(['-n', ns, 'memcached', 'sel']));
    const pods = await waitFor('2 pods of the PodSet', async () => {
      const list = await childrenOf(k, ps.metadata.uid, 'pods');
      return list.length === 2 ? list : undefined;
    });
    const mine = await waitFor("the Memcached's Deployment and Service", async () => {
      const list = await childrenOf(k, mc.metadata.uid, 'deployments,services');
      return list.length === 2 ? list : undefined;
    });
    for (const [parent, children] of [
      [ps, pods],
      [mc, mine],
    ] as const) {
      for (const child of children)
        assert.equal(
          child.metadata.labels?.['controller-uid'],
          parent.metadata.uid,
          `${child.kind} ${child.metadata.name} carries its parent's controller-uid`,
        );
    }
    const selected = (await k.json(['get', 'pods', '-n', ns, '-l', `controller-uid=${ps.metadata.uid}`])).items;
    assert.deepEqual(
      selected.map((p: any) => p.metadata.name).sort(),
      pods.map((p: any) => p.metadata.name).sort(),
      'the generated selector selects exactly its pods',
    );
    notes.push(`PodSet pods, Memcached Deployment and Service carry controller-uid=<their parent's uid> (${secs(t0)})`);

    // A pod with every label the PodSet's pods carry but controller-uid: not the PodSet's, whatever it looks like.
    const labels = { ...pods[0].metadata.labels };
    delete labels['controller-uid'];
    await apply(k, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sel-lookalike', labels },
      spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
    });
    await k.moreSyncs('podset/sync', 'sel', 2, k.syncsOf('podset/sync', 'sel', ns), ns);
    const lookalike = await k.json(['get', 'pod', '-n', ns, 'sel-lookalike']);
    assert.equal(lookalike.metadata.ownerReferences, undefined, 'the look-alike is not adopted');
    const status = (await k.json(['get', '-n', ns, 'podset', 'sel'])).status;
    assert.equal(status.replicas, 2, 'nor counted');
    assert.ok(!status.nodes.includes('sel-lookalike'));
    notes.push('a pod with the same labels but controller-uid was neither adopted, counted nor deleted over two syncs');
    await k.kubectl(['delete', 'pod', '-n', ns, 'sel-lookalike', '--wait=false']);
    return notes;
  },
};

export const adoption: Scenario = {
  name: 'Metacontroller adoption: a child that lost its owner reference is adopted again as it is, not recreated',
  async run(k) {
    await ensureNamespace(k);
    const ps = await waitFor('the PodSet of the selector scenario', () =>
      k.getOrUndefined(['-n', ns, 'podset', 'sel']),
    );
    const [pod] = await childrenOf(k, ps.metadata.uid, 'pods');
    const t0 = Date.now();
    await k.kubectl([
      'patch',
      'pod',
      '-n',
      ns,
      pod.metadata.name,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/ownerReferences"}]',
    ]);
    const back = await waitFor('the orphan adopted again', async () => {
      const p = await k.json(['get', 'pod', '-n', ns, pod.metadata.name]);
      return p.metadata.ownerReferences?.some((r: any) => r.uid === ps.metadata.uid && r.controller) ? p : undefined;
    });
    assert.equal(back.metadata.uid, pod.metadata.uid, 'the same pod, not a new one');
    return [
      `${pod.metadata.name} orphaned (owner reference removed): adopted again in ${secs(t0)}, same uid; ` +
        'a Secret made by hand with the label is adopted in the MySQLCluster recovery scenario',
    ];
  },
};

export const strategies: Scenario = {
  name: 'Metacontroller update strategies: InPlace changes a Deployment and a Service where they are (same uid, same cluster IP); OnDelete never changes a pod',
  async run(k) {
    const notes: string[] = [];
    await ensureNamespace(k);
    const mc = await waitFor('the Memcached of the selector scenario', () =>
      k.getOrUndefined(['-n', ns, 'memcached', 'sel']),
    );
    const [deploy, svc] = ['deployment', 'service'].map((kind) =>
      childrenOf(k, mc.metadata.uid, `${kind}s`).then((l) => l[0]),
    );
    const d0 = await deploy;
    const s0 = await svc;
    let t0 = Date.now();
    await k.kubectl([
      'patch',
      'memcached',
      '-n',
      ns,
      'sel',
      '--type=merge',
      '-p',
      '{"spec":{"image":"memcached:1.6.38","port":11222}}',
    ]);
    const d1 = await waitFor('the Deployment on the new image', async () => {
      const d = await k.json(['get', 'deployment', '-n', ns, d0.metadata.name]);
      return d.spec.template.spec.containers[0].image === 'memcached:1.6.38' ? d : undefined;
    });
    const s1 = await waitFor('the Service on the new port', async () => {
      const s = await k.json(['get', 'service', '-n', ns, s0.metadata.name]);
      return s.spec.ports[0].port === 11222 ? s : undefined;
    });
    assert.equal(d1.metadata.uid, d0.metadata.uid, 'InPlace: the same Deployment');
    assert.equal(s1.metadata.uid, s0.metadata.uid, 'InPlace: the same Service');
    assert.equal(s1.spec.clusterIP, s0.spec.clusterIP, 'its cluster IP kept');
    notes.push(
      `InPlace: Deployment image and Service port changed where they are in ${secs(t0)} (uids and cluster IP kept)`,
    );

    // OnDelete: a PodSet's changed template never reaches a pod in place; pods are replaced (a new uid) by the hook.
    const kubelet = new Kubelet(k, {
      namespace: ns,
      selector: 'app.kubernetes.io/name=podset,app.kubernetes.io/instance=sel',
    });
    kubelet.start();
    try {
      t0 = Date.now();
      await k.kubectl(['patch', 'podset', '-n', ns, 'sel', '--type=merge', '-p', '{"spec":{"image":"busybox:1.36"}}']);
      const ps = await k.json(['get', '-n', ns, 'podset', 'sel']);
      await waitFor(
        'both pods replaced by the rollout',
        async () => {
          const s = kubelet.latest();
          const live = s ? [...s.pods.values()] : [];
          return live.length === 2 && live.every((p) => p.image === 'busybox:1.36' && p.ready);
        },
        90_000,
      );
      assert.equal((await childrenOf(k, ps.metadata.uid, 'pods')).length, 2);
      const images = new Map<string, Set<string>>();
      for (const s of kubelet.states)
        for (const [, p] of s.pods) images.set(p.uid, (images.get(p.uid) ?? new Set()).add(p.image));
      const changed = [...images].filter(([, seen]) => seen.size > 1);
      assert.deepEqual(changed, [], 'OnDelete: no pod ever changed its image in place');
      notes.push(`OnDelete: ${images.size} pods watched through the rollout (${secs(t0)}), none changed in place`);
    } finally {
      await kubelet.stop();
    }
    notes.push(
      await k.assertQuiet({
        namespace: ns,
        parents: ['podsets/sel', 'memcacheds/sel'],
        hooks: [
          { hook: 'podset/sync', parents: 1 },
          { hook: 'memcached/sync', parents: 1 },
        ],
      }),
    );
    await k.kubectl(['delete', 'podset,memcached', '-n', ns, '--all', '--wait=true']);
    return notes;
  },
};

export const authorization: Scenario = {
  name: 'Metacontroller webhook authorization: on a release that has it, every call carries the token (none refused) and a call without it is refused',
  async run(k) {
    await ensureNamespace(k);
    const refused = () => (k.readLog('metaops').match(/"msg":"hook call refused"/g) ?? []).length;
    const url = `http://127.0.0.1:${k.hookPort}/hooks/podset/sync`;
    const body = JSON.stringify({ controller: {}, parent: podset('x', { size: 0 }), children: {} });
    const call = (headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    if (!k.mc.features.authorization) {
      assert.match(k.readLog('metaops'), /METAOPS_ALLOW_UNAUTHENTICATED=true: hooks that act on the cluster/);
      assert.equal((await call()).status, 200, 'without the feature, the server runs with the logged opt-out');
      return [`${k.mc.version} has no webhook authorization: the hook server runs with the logged opt-out`];
    }
    const before = refused();
    assert.equal((await call()).status, 401, 'a call without the token is refused');
    assert.equal((await call({ authorization: 'Bearer wrong' })).status, 401, 'and one with another token');
    assert.equal((await call({ authorization: `Bearer ${k.hookToken}` })).status, 200, 'the token is accepted');
    // The server's log is written asynchronously: the second refusal's line may land just after its answer.
    await waitFor('both refusals in the log', async () => refused() >= before + 2, 5_000);
    assert.equal(refused(), before + 2, 'two refusals logged, no more');
    // Metacontroller's calls in the meantime, about a parent of ours: none refused.
    await apply(k, podset('auth', { size: 1 }));
    await waitFor('the PodSet synced', async () => k.syncsOf('podset/sync', 'auth', ns) > 0);
    await k.moreSyncs('podset/sync', 'auth', 2, k.syncsOf('podset/sync', 'auth', ns), ns);
    assert.equal(refused(), before + 2, "none of Metacontroller's calls was refused");
    const { namespace, name } = PRODUCTION_AUTHORIZATION;
    await k.kubectl(['delete', 'podset', '-n', ns, 'auth', '--wait=true']);
    return [
      `a call without the token and one with another were refused (401); the Secret ${namespace}/${name}'s token ` +
        "was accepted, and Metacontroller's calls carried it (none refused)",
    ];
  },
};

/**
 * resyncAfterSeconds: a parent no event touches is synced again when its last answer asked. The EtcdCluster
 * controller is put back without its resync period (a resync of 300 s) so that only the hook's own requests
 * (10 s while its etcd does not answer, which no kubelet here runs) call it.
 */
export const resyncAfter: Scenario = {
  name: "Metacontroller resyncAfterSeconds: a parent no event touches is synced again when the hook's answer asks",
  async run(k) {
    await ensureNamespace(k);
    const def = operators.find((d) => d.name === 'etcdcluster')!;
    const slow = renderController(def, {
      target: { kind: 'url', base: `http://127.0.0.1:${k.hookPort}` },
      etag: k.mc.features.etag,
      hookVersions: k.mc.features.hookVersion,
      ...(k.mc.features.authorization ? { authorization: { ...PRODUCTION_AUTHORIZATION } } : {}),
      resyncPeriodSeconds: 300,
    });
    await k.kubectl(['apply', '-f', '-'], slow);
    try {
      await apply(k, {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: 'resync' },
        spec: { size: 1, version: '3.5.17' },
      });
      await waitFor(
        'the member pod',
        async () => (await k.json(['get', 'pods', '-n', ns, '-l', 'etcd_cluster=resync'])).items.length === 1,
      );
      // Settled: the pod and Services made, the status written; from here no event touches it (checked below).
      const versions = async () =>
        (await k.json(['get', '-n', ns, 'etcdclusters,pods,services'])).items
          .map((o: any) => `${o.kind}/${o.metadata.name}@${o.metadata.resourceVersion}`)
          .sort();
      let before = await versions();
      await waitFor('nothing changing', async () => {
        await new Promise((r) => setTimeout(r, 2000));
        const now = await versions();
        const same = JSON.stringify(now) === JSON.stringify(before);
        before = now;
        return same;
      });
      const from = k.syncsOf('etcdcluster/sync', 'resync', ns);
      const t0 = Date.now();
      await k.moreSyncs('etcdcluster/sync', 'resync', 2, from, ns, 45_000);
      const took = (Date.now() - t0) / 1000;
      assert.deepEqual(await versions(), before, 'no object of the namespace changed meanwhile: no event called it');
      await k.kubectl(['delete', 'etcdcluster', '-n', ns, 'resync', '--wait=true', '--timeout=60s']);
      return [
        `two syncs ${took.toFixed(1)}s apart from nothing but the hook's resyncAfterSeconds (resync period 300 s)`,
      ];
    } finally {
      await k.installControllers();
    }
  },
};
