// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { operators } from '../../../main/operators.js';
import { controllerName, crdName } from '../../../lib/manifests.js';
import { waitFor } from '../cluster.js';
import { examples, secs, type Scenario } from './common.js';

const LABEL = 'app.kubernetes.io/part-of=metaops';
const crds = operators.flatMap((d) => (d.type === 'composite' ? [crdName(d.resource)] : []));
const controllers = operators.map(
  (d) => `${d.type === 'composite' ? 'compositecontroller' : 'decoratorcontroller'}/${controllerName(d)}`,
);

/**
 * The Helm chart installs what `kubectl apply -k manifests/` installs: the suite's own CRDs and controllers are
 * removed, `helm install` puts metaops's in place (webhooks pointed at the suite's hook server with the chart's
 * `webhook.url`; on a release with webhook `authorization` they send the token of the chart's Secret, which the
 * hook server requires), the Memcached walkthrough converges through them, and `helm uninstall` removes the
 * controllers and keeps the CRDs with their resources. The suite's install is put back at the end.
 */
export const helm: Scenario = {
  name: 'Helm: helm install puts the CRDs and controllers in place, a Memcached converges, helm uninstall keeps the CRDs',
  async run(k) {
    const notes: string[] = [];
    // Uninstall with a resource still there: an EtcdCluster with a member pod (its finalize takes more than one
    // sync) relates the EtcdRestores of its namespace, whose CRD goes with the others. An empty CRD is removed at
    // once, so it can be gone before the cluster is finalized; the scenario takes that order on purpose, and waits
    // until Metacontroller no longer finds the kind (a sync of the cluster then fails on it, on both releases).
    const ns = 'helm-uninstall';
    await k.kubectl(['create', 'namespace', ns]);
    await k.kubectl(
      ['apply', '-n', ns, '-f', '-'],
      JSON.stringify({
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: 'left' },
        spec: { size: 1, version: '3.5.17' },
      }),
    );
    await waitFor('the member pod of EtcdCluster left', () => k.getOrUndefined(['pod', 'left-0', '-n', ns]));
    let t0 = Date.now();
    await k.kubectl(['delete', 'crd', 'etcdrestores.etcd.database.coreos.com', '--wait=true', '--timeout=60s']);
    await waitFor(
      "Metacontroller's sync of EtcdCluster left fails on the etcdrestores it no longer finds",
      async () =>
        k
          .readLog('metacontroller')
          .split('\n')
          .some((l) => l.includes(`${ns}/left`) && l.includes("can't find resource etcdrestores")),
      30_000,
    );
    // CRDs first, while their controllers still run: a parent with a finalizer (S3, EtcdCluster) is finalized by
    // its hook. On a timeout the error lists the objects left and why (plane.stuckObjects).
    await k.deleteCrds(LABEL);
    const finalized = k
      .readLog('metaops')
      .split('\n')
      .filter((l) => l.includes('"hook":"etcdcluster/finalize"') && l.includes(`"namespace":"${ns}"`)).length;
    assert.ok(finalized > 0, 'EtcdCluster left went through its finalize hook');
    notes.push(
      `an EtcdCluster with a member pod, the etcdrestores CRD it relates gone first: finalized (${finalized} finalize ` +
        `calls) and every CRD removed in ${secs(t0)}`,
    );
    t0 = Date.now();
    await k.kubectl(['delete', 'compositecontrollers,decoratorcontrollers', '-l', LABEL, '--wait=true']);
    // PodBuggerTool's author policy, when a scenario installed it (manifests/admission/): the chart ships its own.
    await k.kubectl([
      'delete',
      'mutatingadmissionpolicybindings,mutatingadmissionpolicies,validatingadmissionpolicybindings,validatingadmissionpolicies',
      '-l',
      LABEL,
      '--wait=true',
    ]);
    assert.equal((await k.json(['get', 'crd', '-l', LABEL])).items.length, 0, 'no metaops CRD left');
    notes.push(`then the suite's controllers removed in ${secs(t0)}`);

    t0 = Date.now();
    const chart = join(k.repo, 'charts', 'metaops');
    const out = await k.helm([
      'install',
      'metaops',
      chart,
      '--namespace',
      'metaops',
      '--create-namespace',
      '--set',
      `webhook.url=http://127.0.0.1:${k.hookPort}`,
    ]);
    assert.match(out, /STATUS: deployed/);
    await k.kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...crds.map((c) => `crd/${c}`)]);
    for (const c of controllers) {
      const obj = await k.json(['get', c]);
      assert.equal(obj.metadata.annotations?.['meta.helm.sh/release-name'], 'metaops', `${c} belongs to the release`);
      const webhook = obj.spec.hooks.sync.webhook;
      assert.ok(webhook.url.startsWith(`http://127.0.0.1:${k.hookPort}/hooks/`), `${c}: ${webhook.url}`);
      // v1.5.20 has no `authorization` field: its CRD prunes it, and the hook server runs with the opt-out.
      if (k.mc.features.authorization)
        assert.deepEqual(webhook.authorization, {
          type: 'Bearer',
          secretRef: { namespace: 'metaops', name: 'metaops-hook-token', key: 'token' },
        });
    }
    const listed = JSON.parse(await k.helm(['list', '--namespace', 'metaops', '-o', 'json']));
    assert.deepEqual(
      listed.map((r: any) => [r.name, r.status]),
      [['metaops', 'deployed']],
    );
    notes.push(`helm install: ${crds.length} CRDs and ${controllers.length} controllers in ${secs(t0)}`);

    t0 = Date.now();
    const authorized = async () => {
      const text = await (await fetch(`http://127.0.0.1:${k.hookPort}/metrics`)).text();
      const m = /^metaops_hook_requests_total\{hook="memcached\/sync",outcome="ok"\} (\d+)/m.exec(text);
      return Number(m?.[1] ?? 0);
    };
    const okBefore = await authorized();
    await k.kubectl(['apply', '-f', examples(k.repo, 'memcached.yaml')]);
    const deployment = await waitFor('the Memcached Deployment from the helm-installed controller', async () =>
      k.getOrUndefined(['deployment', 'memcached-sample']),
    );
    assert.equal(deployment.spec.replicas, 3);
    assert.ok(await k.getOrUndefined(['service', 'memcached-sample-memcached']), 'and its Service');
    await waitFor('the Memcached status written', async () => {
      const m = await k.json(['get', 'memcached', 'memcached-sample']);
      return m.status?.observedGeneration === m.metadata.generation;
    });
    assert.ok((await authorized()) > okBefore, 'the hook answered the helm-installed controller');
    notes.push(`Memcached converged through the chart's controller in ${secs(t0)}`);

    t0 = Date.now();
    await k.helm(['uninstall', 'metaops', '--namespace', 'metaops', '--wait']);
    for (const c of controllers) assert.equal(await k.getOrUndefined([c]), undefined, `${c} removed`);
    for (const c of crds) assert.ok(await k.getOrUndefined(['crd', c]), `${c} kept (helm.sh/resource-policy: keep)`);
    assert.ok(await k.getOrUndefined(['memcached', 'memcached-sample']), 'and the Memcached with it');
    notes.push(`helm uninstall: controllers removed, CRDs and resources kept (${secs(t0)})`);

    // The suite's install again, for the scenarios after this one.
    await k.installCrds();
    await k.installControllers();
    await k.kubectl(['delete', 'memcached', 'memcached-sample', '--wait=true']);
    await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
    return notes;
  },
};
