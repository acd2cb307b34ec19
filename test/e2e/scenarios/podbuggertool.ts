// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { examples, secs, condition, type Scenario } from './common.js';

export const podbuggertool: Scenario = {
  name: 'PodBuggerTool: matching pods get exactly one ephemeral container; others untouched; allowlist enforced',
  async run(k) {
    const notes: string[] = [];
    const pod = (name: string, ns: string, labels: Record<string, string>) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: ns, labels },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      });
    await k.kubectl(['create', 'namespace', 'dbg']);
    await k.kubectl(['create', 'namespace', 'elsewhere']);
    await k.kubectl(['apply', '-f', '-'], pod('web-1', 'dbg', { app: 'web' }));
    await k.kubectl(['apply', '-f', '-'], pod('plain', 'dbg', { app: 'db' }));
    await k.kubectl(['apply', '-f', '-'], pod('web-other', 'elsewhere', { app: 'web' }));
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'podbuggertool.yaml')]);
    const ephemeral = async (ns: string, name: string) =>
      ((await k.json(['get', 'pod', name, '-n', ns])).spec.ephemeralContainers ?? []) as any[];
    const injected = await waitFor('web-1 to get the debug container', async () => {
      const list = await ephemeral('dbg', 'web-1');
      return list.length > 0 ? list : undefined;
    });
    assert.equal(injected.length, 1);
    assert.equal(injected[0].name, 'debug-busybox-debugger');
    assert.equal(injected[0].image, 'busybox:1.36');
    assert.deepEqual(injected[0].securityContext?.capabilities?.add, ['SYS_PTRACE']);
    notes.push(`existing matching pod injected ${secs(t0)} after the tool was created`);

    t0 = Date.now();
    await k.kubectl(['apply', '-f', '-'], pod('web-2', 'dbg', { app: 'web' }));
    await waitFor('a pod created later gets it too', async () => (await ephemeral('dbg', 'web-2')).length === 1);
    notes.push(`pod created later injected in ${secs(t0)}`);
    // The record is the container itself and the tool's status: no pod annotation is written.
    const annotations = (await k.json(['get', 'pod', 'web-2', '-n', 'dbg'])).metadata.annotations ?? {};
    assert.equal(Object.keys(annotations).filter((a) => a.startsWith('debug.metaops.dev/')).length, 0);
    // No controller watches every pod: the hook is only called about the tools, with the pods they select.
    const decorators = (await k.json(['get', 'decoratorcontrollers'])).items.map((d: any) => d.metadata.name);
    assert.ok(!decorators.includes('metaops-podbuggertool'), `no DecoratorController on pods: ${decorators}`);

    // Re-syncs add nothing: relabel to trigger syncs, then check once more.
    for (let i = 0; i < 3; i++) await k.kubectl(['label', 'pod', 'web-1', '-n', 'dbg', `resync=${i}`, '--overwrite']);
    const tool = await waitFor('tool status matched=2 injected=2', async () => {
      const t = await k.json(['get', 'pbt', 'busybox-debugger', '-n', 'dbg']);
      return t.status?.matched === 2 && t.status?.injected === 2 ? t : undefined;
    });
    assert.deepEqual([...tool.status.lastInjected].sort(), ['web-1', 'web-2']);
    assert.equal((await ephemeral('dbg', 'web-1')).length, 1, 're-syncs do not duplicate');
    assert.equal((await ephemeral('dbg', 'plain')).length, 0, 'an unlabelled pod is untouched');
    assert.equal((await ephemeral('elsewhere', 'web-other')).length, 0, 'a pod in another namespace is untouched');
    notes.push(
      await k.assertQuiet({
        namespace: 'dbg',
        parents: ['pods/web-1', 'pods/web-2', 'pods/plain', 'podbuggertools/busybox-debugger'],
        hooks: [{ hook: 'podbuggertool/sync', parents: 1 }],
      }),
    );
    const table = await k.kubectl(['get', 'pbt', '-n', 'dbg']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'IMAGE', 'MATCHED', 'INJECTED', 'AGE']);
    notes.push(`kubectl get pbt: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);

    // An image outside the server's allowlist (busybox* here): a condition, and nothing injected.
    await k.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'debug.metaops.dev/v1alpha1',
        kind: 'PodBuggerTool',
        metadata: { name: 'netshoot', namespace: 'dbg' },
        spec: { label: 'app=web', image: 'nicolaka/netshoot:latest', securityProfile: 'netadmin' },
      }),
    );
    const refused = await waitFor('ImageNotAllowed', async () => {
      const t = await k.json(['get', 'pbt', 'netshoot', '-n', 'dbg']);
      return condition(t, 'Ready')?.reason === 'ImageNotAllowed' ? t : undefined;
    });
    assert.equal(refused.status.injected, 0);
    const syncs = () => (k.readLog('metaops').match(/"hook":"podbuggertool\/sync".*"name":"netshoot"/g) ?? []).length;
    const before = syncs();
    await k.kubectl(['label', 'pod', 'web-1', '-n', 'dbg', 'resync=after', '--overwrite']);
    await waitFor('the refused tool synced again after its pod changed', async () => syncs() > before);
    assert.deepEqual(
      (await ephemeral('dbg', 'web-1')).map((c) => c.name),
      ['debug-busybox-debugger'],
    );
    notes.push(`disallowed image refused: ${condition(refused, 'Ready').message}`);
    return notes;
  },
};

/**
 * Pod Security `restricted` (enforced by kube-apiserver's PodSecurity admission, on by default): the seeds'
 * resources applied in a namespace labelled to enforce it get their pods admitted.
 */
