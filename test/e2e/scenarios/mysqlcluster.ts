// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { examples, secs, condition, type Scenario } from './common.js';

export const mysql: Scenario = {
  name: 'MySQLCluster: seed YAML verbatim, password kept across resyncs and a hook restart, invalid spec deletes nothing',
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'mysqlcluster.yaml')]);
    const sts = await waitFor('StatefulSet my-mysql-mysql', () => k.getOrUndefined(['statefulset', 'my-mysql-mysql']));
    assert.equal(sts.spec.replicas, 3);
    assert.equal(sts.spec.template.spec.containers[0].image, 'mysql:8.0');
    assert.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '1Gi');
    const headless = await waitFor('headless Service', () => k.getOrUndefined(['service', 'my-mysql-mysql-headless']));
    assert.equal(headless.spec.clusterIP, 'None');
    const client = await waitFor('client Service', () => k.getOrUndefined(['service', 'my-mysql-mysql']));
    assert.equal(client.spec.ports[0].port, 3306);
    const secret = await waitFor('Secret', () => k.getOrUndefined(['secret', 'my-mysql-mysql']));
    const password = secret.data['root-password'];
    assert.ok(password && Buffer.from(password, 'base64').length >= 24);
    const read = await waitFor('read Service', () => k.getOrUndefined(['service', 'my-mysql-mysql-read']));
    assert.equal(
      client.spec.selector['statefulset.kubernetes.io/pod-name'],
      'my-mysql-mysql-0',
      'writes go to the primary',
    );
    assert.equal(read.spec.selector['statefulset.kubernetes.io/pod-name'], undefined, 'reads go to every Ready member');
    assert.ok(secret.data['replication-password']);
    notes.push(`StatefulSet, three Services and Secret in ${secs(t0)}`);
    notes.push(await k.assertQuiet({ parents: ['mysqlclusters/my-mysql'], hooks: ['mysqlcluster/sync'] }));

    const uids = async () =>
      Promise.all(
        [
          ['statefulset', 'my-mysql-mysql'],
          ['service', 'my-mysql-mysql'],
          ['service', 'my-mysql-mysql-headless'],
          ['secret', 'my-mysql-mysql'],
        ].map(async (args) => (await k.json(['get', ...args])).metadata.uid as string),
      );
    const before = await uids();

    // Resyncs: a label change on the parent makes Metacontroller call the hook again.
    t0 = Date.now();
    // At rest no child is written again: Metacontroller logs "Updating" for each child it updates.
    const updates = () => k.childUpdates('default', 'my-mysql');
    await new Promise((r) => setTimeout(r, 3000)); // the creation's own syncs settle
    const updatesBefore = updates();
    for (let i = 1; i <= 3; i++) {
      await k.kubectl(['label', 'mysqlcluster', 'my-mysql', `resync=${i}`, '--overwrite']);
      await waitFor(`sync ${i} observed`, async () => {
        const log = k.readLog('metaops');
        return (log.match(/"hook":"mysqlcluster\/sync"/g) ?? []).length > i;
      });
    }
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(updates(), updatesBefore, 'no child updated by the resyncs of a settled cluster');
    assert.equal((await k.json(['get', 'secret', 'my-mysql-mysql'])).data['root-password'], password);

    // A restart of the hook server: nothing of the password lives in it.
    await k.stopHooks();
    await k.startHooks();
    await k.kubectl(['scale', 'mysqlcluster', 'my-mysql', '--replicas=2']);
    await waitFor(
      'size 2 applied after the restart',
      async () => (await k.json(['get', 'statefulset', 'my-mysql-mysql'])).spec.replicas === 2,
    );
    assert.equal((await k.json(['get', 'secret', 'my-mysql-mysql'])).data['root-password'], password);
    assert.deepEqual(await uids(), before, 'no child was recreated');
    notes.push(`password unchanged and no child updated over 3 resyncs, and a hook restart (${secs(t0)})`);

    // An invalid spec: the hook reports it and keeps every child as it is.
    t0 = Date.now();
    await k.kubectl(['patch', 'mysqlcluster', 'my-mysql', '--type=merge', '-p', '{"spec":{"version":"eight"}}']);
    const invalid = await waitFor('Ready=False InvalidSpec', async () => {
      const m = await k.json(['get', 'mysqlcluster', 'my-mysql']);
      const ready = condition(m, 'Ready');
      return ready?.reason === 'InvalidSpec' && ready.observedGeneration === m.metadata.generation ? m : undefined;
    });
    assert.match(condition(invalid, 'Ready').message, /spec\.version is "eight"/);
    const after = await k.json(['get', 'statefulset', 'my-mysql-mysql']);
    assert.equal(after.spec.template.spec.containers[0].image, 'mysql:8.0');
    assert.equal(after.spec.replicas, 2);
    assert.deepEqual(await uids(), before, 'no child deleted or recreated');
    notes.push(`invalid version -> InvalidSpec condition in ${secs(t0)}, all four children kept`);

    const table = await k.kubectl(['get', 'mysqlclusters']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'SIZE', 'READY', 'VERSION', 'STATUS', 'AGE']);
    notes.push(`kubectl get mysqlclusters: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);
    await k.kubectl(['delete', 'mysqlcluster', 'my-mysql', '--wait=true']);
    return notes;
  },
};
