// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AUTHOR_GRACE_MS, AUTHOR_OBJECTS, AUTHOR_POLICY } from '../../../hooks/podbuggertool/author.js';
import { waitFor, type ControlPlane } from '../cluster.js';
import { examples, secs, condition, type Scenario } from './common.js';

/**
 * The author policy (manifests/admission/): every PodBuggerTool is stamped with the user who wrote it (and refused when
 * stored with another stamp), and the hook server acts for a tool only with that stamp, on a tool created past the
 * policy's grace (this API server allows every review: AlwaysAllow). Installed before any tool is written; applying it again changes nothing.
 */
export async function installAuthorPolicy(k: ControlPlane): Promise<void> {
  // The CRD first, whatever a scenario before did with the suite's CRDs (Helm replaces them).
  const crd = join(k.repo, 'manifests', 'crds', 'podbuggertools.debug.metaops.dev.yaml');
  await k.kubectl(['apply', '-f', crd]);
  await k.kubectl(['wait', '--for=condition=Established', '--timeout=60s', '-f', crd]);
  await k.kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'metaops' } }),
  );
  await k.kubectl(['apply', '-f', join(k.repo, 'manifests', 'admission', 'podbuggertool-author.yaml')]);
  // A tool created within AUTHOR_GRACE_MS of the policy is not trusted (hooks/podbuggertool/author.ts): wait past it.
  // All four objects (the mutating policy, the validating one, their bindings): the latest creation counts.
  const created: number[] = [];
  for (const kind of AUTHOR_OBJECTS)
    created.push(Date.parse((await k.json(['get', kind.resource, AUTHOR_POLICY])).metadata.creationTimestamp));
  const since = Math.max(...created);
  const wait = since + AUTHOR_GRACE_MS + 1500 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

/**
 * Writes a tool (an object, or a file) as a user would, and again until the author policy has stamped it (the API
 * server takes a new policy in a moment after its creation: a tool written before keeps no stamp). Answers the stamp
 * and how many writes it took.
 */
export async function writeTool(
  k: ControlPlane,
  tool: Record<string, any> | string,
): Promise<{ stamp: string; writes: number }> {
  const [namespace, name] =
    typeof tool === 'string'
      ? ['dbg', 'busybox-debugger'] // manifests/examples/podbuggertool.yaml
      : [tool['metadata'].namespace as string, tool['metadata'].name as string];
  let writes = 0;
  const stamp = await waitFor(
    `the tool ${namespace}/${name} stamped with its author`,
    async () => {
      writes += 1;
      if (typeof tool === 'string') await k.kubectl(['apply', '-f', tool]);
      else await k.kubectl(['apply', '-f', '-'], JSON.stringify(tool));
      const value = (await k.json(['get', 'pbt', name, '-n', namespace])).metadata.annotations?.[
        'debug.metaops.dev/author'
      ];
      if (typeof value === 'string' && value.startsWith('v1;')) return value;
      await k.kubectl(['delete', 'pbt', name, '-n', namespace, '--wait=true']);
      return undefined;
    },
    120_000,
    500,
  );
  return { stamp, writes };
}

export const pod = (name: string, ns: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

export const podbuggertool: Scenario = {
  name: 'PodBuggerTool: the injector adds exactly one container to matching pods; others untouched; refusals said',
  async run(k) {
    const notes: string[] = [];
    await installAuthorPolicy(k);
    const apply = (obj: unknown) => k.kubectl(['apply', '-f', '-'], JSON.stringify(obj));
    await k.kubectl(['create', 'namespace', 'dbg']);
    await k.kubectl(['create', 'namespace', 'elsewhere']);
    await apply(pod('web-1', 'dbg', { app: 'web' }));
    await apply(pod('plain', 'dbg', { app: 'db' }));
    // The same name in another namespace (Metacontroller v1.5.20 caches customize answers by name alone).
    await apply(pod('web-1', 'elsewhere', { app: 'web' }));
    let t0 = Date.now();
    const { stamp, writes } = await writeTool(k, examples(k.repo, 'podbuggertool.yaml'));
    assert.match(
      stamp,
      /^v1;admin;admin;system:masters,system:authenticated(;[^;]*)?$/,
      'stamped with its author (and its extra, if any)',
    );
    if (writes > 1) notes.push(`the tool was written ${writes} times before the policy stamped it`);
    const ephemeral = async (ns: string, name: string) =>
      ((await k.json(['get', 'pod', name, '-n', ns])).spec.ephemeralContainers ?? []) as any[];
    const injected = await waitFor('web-1 to get the debug container', async () => {
      const list = await ephemeral('dbg', 'web-1');
      return list.length > 0 ? list : undefined;
    });
    assert.equal(injected.length, 1);
    assert.equal(injected[0].name, 'debug-busybox-debugger');
    assert.equal(injected[0].image, 'docker.io/library/busybox:1.36', 'named as the allowlist resolved it');
    assert.equal(injected[0].securityContext, undefined, 'the default profile (baseline) adds no capability');
    notes.push(`existing matching pod injected ${secs(t0)} after the tool was created`);

    t0 = Date.now();
    await apply(pod('web-2', 'dbg', { app: 'web' }));
    await waitFor('a pod created later gets it too', async () => (await ephemeral('dbg', 'web-2')).length === 1);
    notes.push(`pod created later injected in ${secs(t0)}`);
    // The record is the container itself and the tool's status: nothing is written on a pod that took it.
    const annotations = (await k.json(['get', 'pod', 'web-2', '-n', 'dbg'])).metadata.annotations ?? {};
    assert.equal(Object.keys(annotations).filter((a) => a.startsWith('debug.metaops.dev/')).length, 0);
    const decorators = (await k.json(['get', 'decoratorcontrollers'])).items.map((d: any) => d.metadata.name);
    assert.ok(decorators.includes('metaops-podbuggertool-injector'), `the injector decorates pods: ${decorators}`);

    // Changes of the pods bring calls that add nothing: relabel to make them, then check once more.
    for (let i = 0; i < 3; i++) await k.kubectl(['label', 'pod', 'web-1', '-n', 'dbg', `resync=${i}`, '--overwrite']);
    const tool = await waitFor(
      'tool status matched=2 injected=2',
      async () => {
        const t = await k.json(['get', 'pbt', 'busybox-debugger', '-n', 'dbg']);
        return t.status?.matched === 2 && t.status?.injected === 2 && condition(t, 'Ready')?.status === 'True'
          ? t
          : undefined;
      },
      90_000,
    );
    assert.equal(condition(tool, 'Ready').reason, 'Injected');
    assert.equal((await ephemeral('dbg', 'web-1')).length, 1, 'no duplicate');
    assert.equal((await ephemeral('dbg', 'plain')).length, 0, 'an unlabelled pod is untouched');
    assert.equal((await ephemeral('elsewhere', 'web-1')).length, 0, 'a pod in another namespace is untouched');
    const pods = (await k.json(['get', 'pods', '-A'])).items.length;
    notes.push(
      await k.assertQuiet({
        namespace: 'dbg',
        parents: ['pods/web-1', 'pods/web-2', 'pods/plain', 'podbuggertools/busybox-debugger'],
        // The injector decorates every pod of the cluster, each resynced every E2E_RESYNC_SECONDS here.
        hooks: [
          { hook: 'podbuggertool/sync', parents: 1 },
          { hook: 'podbuggertool-injector/sync', parents: pods },
        ],
      }),
    );
    const table = await k.kubectl(['get', 'pbt', '-n', 'dbg']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'IMAGE', 'MATCHED', 'INJECTED', 'PENDING', 'AGE']);
    notes.push(`kubectl get pbt: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);

    // An image outside the server's allowlist (busybox* here): a condition, and nothing injected.
    await writeTool(k, {
      apiVersion: 'debug.metaops.dev/v1alpha1',
      kind: 'PodBuggerTool',
      metadata: { name: 'netshoot', namespace: 'dbg' },
      spec: { label: 'app=web', image: 'nicolaka/netshoot:latest', securityProfile: 'netadmin' },
    });
    const refused = await waitFor('ImageNotAllowed', async () => {
      const t = await k.json(['get', 'pbt', 'netshoot', '-n', 'dbg']);
      return condition(t, 'Ready')?.reason === 'ImageNotAllowed' ? t : undefined;
    });
    // A refused tool reads, counts and names no pod (its status would be pods/list by proxy).
    for (const field of ['matched', 'injected', 'pending', 'skips'])
      assert.ok(!(field in refused.status), `a refused tool's status has no ${field}`);
    notes.push(`disallowed image refused: ${condition(refused, 'Ready').message}`);
    // The restricted profile with busybox and no user: busybox runs as root, which restricted forbids.
    await writeTool(k, {
      apiVersion: 'debug.metaops.dev/v1alpha1',
      kind: 'PodBuggerTool',
      metadata: { name: 'strict', namespace: 'dbg' },
      spec: { label: 'app=web', image: 'busybox:1.36', securityProfile: 'restricted' },
    });
    const root = await waitFor('RunsAsRoot', async () => {
      const t = await k.json(['get', 'pbt', 'strict', '-n', 'dbg']);
      return condition(t, 'Ready')?.reason === 'RunsAsRoot' ? t : undefined;
    });
    assert.equal(root.status.injected, 0);
    assert.equal(root.status.skipped, 2);
    notes.push(`restricted as root refused: ${condition(root, 'Ready').message}`);
    // A pod that has completed is skipped, and said so (it completes before a tool selects it).
    await apply(pod('done', 'dbg', { app: 'job' }));
    await k.kubectl([
      'patch',
      'pod',
      'done',
      '-n',
      'dbg',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Succeeded"}}',
    ]);
    await k.kubectl(['label', 'pod', 'done', '-n', 'dbg', 'app=web', '--overwrite']);
    const calls = async () => (await k.hookCalls()).get('podbuggertool-injector/sync') ?? 0;
    const before = await calls();
    await k.kubectl(['label', 'pod', 'web-1', '-n', 'dbg', 'resync=after', '--overwrite']);
    await waitFor('the injector called again after the pod changed', async () => (await calls()) > before);
    assert.deepEqual(
      (await ephemeral('dbg', 'web-1')).map((c) => c.name),
      ['debug-busybox-debugger'],
      'neither the refused image nor the root container was added',
    );
    const skipped = await waitFor(
      'the completed pod skipped',
      async () => {
        const t = await k.json(['get', 'pbt', 'busybox-debugger', '-n', 'dbg']);
        return t.status?.skips?.some((s: any) => s.pod === 'done' && s.reason === 'PodCompleted') ? t : undefined;
      },
      90_000,
    );
    assert.equal((await ephemeral('dbg', 'done')).length, 0);
    notes.push(`completed pod skipped: ${condition(skipped, 'Ready').message}`);
    return notes;
  },
};

/**
 * The upgrade from the CompositeController version, on the state it left: pods carrying `debug-<tool>` (added by
 * the old hook, with the tool's image of then, or of now). `kubectl apply -k manifests/` updates that controller in
 * place (same name, test/podbuggertool/podbuggertool.test.ts) and adds the injector, which must leave those containers as they are.
 */
export const podbuggertoolUpgrade: Scenario = {
  name: 'PodBuggerTool upgrade from the CompositeController version: the containers it added are left as they are, and counted',
  async run(k) {
    await installAuthorPolicy(k);
    await k.kubectl(['create', 'namespace', 'upgrade']);
    const injectedBefore = async (name: string, image: string) => {
      await k.kubectl(['apply', '-f', '-'], JSON.stringify(pod(name, 'upgrade', { app: 'up' })));
      // What the old hook did: a PATCH of the ephemeralcontainers subresource.
      await k.kubectl([
        'patch',
        'pod',
        name,
        '-n',
        'upgrade',
        '--subresource=ephemeralcontainers',
        '--type=strategic',
        '-p',
        JSON.stringify({ spec: { ephemeralContainers: [{ name: 'debug-up', image, stdin: true, tty: true }] } }),
      ]);
    };
    await injectedBefore('u-old', 'busybox:1.35');
    await injectedBefore('u-same', 'busybox:1.36');
    await k.kubectl(['apply', '-f', '-'], JSON.stringify(pod('u-new', 'upgrade', { app: 'up' })));
    const before = Object.fromEntries(
      await Promise.all(
        ['u-old', 'u-same'].map(async (n) => [
          n,
          (await k.json(['get', 'pod', n, '-n', 'upgrade'])).spec.ephemeralContainers,
        ]),
      ),
    );
    await writeTool(k, {
      apiVersion: 'debug.metaops.dev/v1alpha1',
      kind: 'PodBuggerTool',
      metadata: { name: 'up', namespace: 'upgrade' },
      spec: { label: 'app=up', image: 'busybox:1.36' },
    });
    const tool = await waitFor(
      'the tool counting three pods, two carrying its current image',
      async () => {
        const t = await k.json(['get', 'pbt', 'up', '-n', 'upgrade']);
        // Not Ready while a pod carries the earlier image's container: Outdated (docs/podbuggertool.md, the Ready table).
        return t.status?.injected === 2 && condition(t, 'Ready')?.reason === 'Outdated' ? t : undefined;
      },
      90_000,
    );
    assert.equal(tool.status.matched, 3);
    assert.equal(tool.status.outdated, 1, 'the older image is counted apart, never changed');
    assert.equal(condition(tool, 'Ready').status, 'False', 'not done: one pod carries the earlier container');
    for (const n of ['u-old', 'u-same'])
      assert.deepEqual(
        (await k.json(['get', 'pod', n, '-n', 'upgrade'])).spec.ephemeralContainers,
        before[n],
        `${n}: left as it was`,
      );
    const added = (await k.json(['get', 'pod', 'u-new', '-n', 'upgrade'])).spec.ephemeralContainers;
    assert.deepEqual(
      added.map((c: any) => [c.name, c.image]),
      [['debug-up', 'docker.io/library/busybox:1.36']],
    );
    return [`after the upgrade: ${condition(tool, 'Ready').message}`];
  },
};
