// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { E2E_RESYNC_SECONDS, waitFor } from '../cluster.js';
import {
  assertNotWokenFromAnotherNamespace,
  examples,
  secs,
  condition,
  type Scenario,
  workloadPolicySpec,
} from './common.js';

export const memcached: Scenario = {
  name: 'Memcached: the tutorial sample gets its Deployment and Service, nodes, kubectl scale, deletion',
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'memcached.yaml')]);
    const deploy = await waitFor('Deployment memcached-sample with 3 replicas', async () => {
      const d = await k.getOrUndefined(['deployment', 'memcached-sample']);
      return d?.spec.replicas === 3 ? d : undefined;
    });
    assert.equal(deploy.spec.template.spec.containers[0].image, 'memcached:1.6-alpine');
    const svc = await waitFor('Service memcached-sample-memcached', () =>
      k.getOrUndefined(['service', 'memcached-sample-memcached']),
    );
    assert.equal(svc.spec.ports[0].port, 11211);
    notes.push(`Deployment and Service created in ${secs(t0)}`);
    // Its pods' NetworkPolicy as the API server stores it: exactly what the hook answers (lib/network-policy.ts), its
    // selector the Service's.
    const policy = await waitFor('NetworkPolicy memcached-sample-memcached', () =>
      k.getOrUndefined(['networkpolicy', 'memcached-sample-memcached']),
    );
    assert.deepEqual(policy.spec, workloadPolicySpec(svc.spec.selector));

    t0 = Date.now();
    const selector = 'app.kubernetes.io/instance=memcached-sample';
    const mc = await waitFor(
      'status.nodes to list 3 ready pods and Available=True',
      async () => {
        await k.markPodsReady(selector);
        const m = await k.json(['get', 'memcached', 'memcached-sample']);
        return m.status?.nodes?.length === 3 && condition(m, 'Available')?.status === 'True' ? m : undefined;
      },
      90_000,
    );
    const pods = await k.json(['get', 'pods', '-l', selector]);
    assert.deepEqual([...mc.status.nodes].sort(), pods.items.map((p: any) => p.metadata.name).sort());
    assert.equal(mc.status.readyReplicas, 3);
    notes.push(`pods ready -> status.nodes and Available=True in ${secs(t0)}`);

    t0 = Date.now();
    // The scale subresource: kubectl scale (and a HorizontalPodAutoscaler) set spec.size.
    await k.kubectl(['scale', 'memcached', 'memcached-sample', '--replicas=4']);
    const scale = JSON.parse(
      await k.kubectl([
        'get',
        '--raw',
        '/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/memcached-sample/scale',
      ]),
    );
    assert.equal(scale.spec.replicas, 4);
    await waitFor(
      'size 4 reflected in the Deployment, status and nodes',
      async () => {
        await k.markPodsReady(selector);
        const m = await k.json(['get', 'memcached', 'memcached-sample']);
        const d = await k.json(['get', 'deployment', 'memcached-sample']);
        return d.spec.replicas === 4 && m.status?.nodes?.length === 4 && m.status.ready === '4/4';
      },
      90_000,
    );
    notes.push(`size 3 -> 4 converged in ${secs(t0)}`);

    // A pod of another namespace carrying every label of the Memcached's pods but its keyed parent label syncs it no
    // more than its resyncs do (on v1.5.20 a rule by name/instance was matched by labels alone: each write synced it).
    notes.push(
      await assertNotWokenFromAnotherNamespace(k, {
        hook: 'memcached/sync',
        ownPods: [selector],
        namespace: 'default',
        parentLabel: 'memcached.metaops.io/parent-id',
        parent: { kind: 'Memcached', name: 'memcached-sample' },
        seconds: E2E_RESYNC_SECONDS,
      }),
    );
    notes.push(await k.assertQuiet({ parents: ['memcacheds/memcached-sample'], hooks: ['memcached/sync'] }));

    t0 = Date.now();
    await k.kubectl(['delete', 'memcached', 'memcached-sample', '--wait=true', '--timeout=60s']);
    await waitFor(
      'Deployment and Service to be garbage-collected',
      async () => {
        const d = await k.getOrUndefined(['deployment', 'memcached-sample']);
        const s = await k.getOrUndefined(['service', 'memcached-sample-memcached']);
        return !d && !s;
      },
      90_000,
    );
    notes.push(`delete -> children gone in ${secs(t0)}`);

    // Made again under its name, twice: the first time at generation 1 (its answer is then kept at generation 1), the
    // second again at generation 1, which v1.5.20 (one customize answer kept per name and generation, never dropped)
    // hands the answer of the first: it must ask for the pods the new Deployment makes, so its nodes are listed.
    for (const round of ['first', 'second']) {
      t0 = Date.now();
      const customizeBefore = (await k.hookCalls()).get('memcached/customize') ?? 0;
      await k.kubectl(['apply', '-f', examples(k.repo, 'memcached.yaml')]);
      await waitFor(
        `the Memcached made again under its name (${round} time) to list its 3 pods in status.nodes`,
        async () => {
          await k.markPodsReady(selector);
          const m = await k.json(['get', 'memcached', 'memcached-sample']);
          return m.status?.nodes?.length === 3 ? m : undefined;
        },
        120_000,
      );
      const customized = ((await k.hookCalls()).get('memcached/customize') ?? 0) - customizeBefore;
      notes.push(
        `made again under its name (${round} time): its 3 pods listed in ${secs(t0)}, customize called ${customized} times`,
      );
      if (round === 'second') break;
      await k.kubectl(['delete', 'memcached', 'memcached-sample', '--wait=true', '--timeout=60s']);
      await waitFor('the Deployment of the Memcached made again to be garbage-collected', async () =>
        (await k.getOrUndefined(['deployment', 'memcached-sample'])) ? undefined : true,
      );
    }
    // Left at generation 2: "Restricted namespace" makes a Memcached of this name in another namespace at generation
    // 1, which an answer kept at generation 1 here would be handed on v1.5.20, and refused (docs/metacontroller.md,
    // same-named parents).
    await k.kubectl(['patch', 'memcached', 'memcached-sample', '--type=merge', '-p', '{"spec":{"size":2}}']);
    await waitFor('the Memcached made again synced at generation 2', async () => {
      const m = await k.json(['get', 'memcached', 'memcached-sample']);
      return m.status?.observedGeneration === 2 ? m : undefined;
    });
    await k.kubectl(['delete', 'memcached', 'memcached-sample', '--wait=true', '--timeout=60s']);
    return notes;
  },
};
