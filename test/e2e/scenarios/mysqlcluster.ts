// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { waitFor, type ControlPlane } from '../cluster.js';
import { Kubelet } from '../kubelet.js';
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
    // (A version the CRD accepts and the hook refuses: older than replication needs, and a downgrade.)
    await k.kubectl(['patch', 'mysqlcluster', 'my-mysql', '--type=merge', '-p', '{"spec":{"version":"5.7"}}']);
    const invalid = await waitFor('Ready=False InvalidSpec', async () => {
      const m = await k.json(['get', 'mysqlcluster', 'my-mysql']);
      const ready = condition(m, 'Ready');
      return ready?.reason === 'InvalidSpec' && ready.observedGeneration === m.metadata.generation ? m : undefined;
    });
    assert.match(condition(invalid, 'Ready').message, /spec\.version is "5\.7"/);
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

/**
 * The commands a condition message gives after `lead` (joined by ` && `), with `<password>` filled in, each run by
 * bash as a user would; `between` runs after each but the last.
 */
async function followInstruction(
  k: ControlPlane,
  message: string,
  lead: string,
  password: string,
  between?: (done: string) => Promise<void>,
): Promise<string> {
  const at = message.indexOf(lead);
  assert.ok(at >= 0, `the message gives a command after "${lead}": ${message}`);
  const text = message.slice(at + lead.length);
  const commands = text.split(' && ');
  const run = promisify(execFile);
  for (const [i, command] of commands.entries()) {
    await run('bash', ['-c', command.replace('<password>', password)], {
      env: { ...process.env, PATH: `${k.bin}:${process.env['PATH']}`, KUBECONFIG: k.kubeconfig },
    });
    if (i < commands.length - 1) await between?.(command);
  }
  return text;
}

const REBORN = 'reborn';

/**
 * CredentialsLost, recovered by doing what the condition says: a MySQLCluster deleted and created again under its
 * name finds its old data volumes and no Secret, makes no password and says how to give the old one back; the
 * commands of the message, run word for word (the password filled in), make it Ready with that password. The same
 * for a Secret whose password was removed.
 */
export const mysqlRecovered: Scenario = {
  name: "MySQLCluster deleted and created again over its volumes: CredentialsLost, and the condition's commands run word for word make it Ready with its old password",
  async run(k) {
    const notes: string[] = [];
    const kubelet = new Kubelet(k, { selector: `app.kubernetes.io/instance=${REBORN}` });
    kubelet.start();
    try {
      const manifest = JSON.stringify({
        apiVersion: 'database.example.com/v1alpha1',
        kind: 'MySQLCluster',
        metadata: { name: REBORN },
        spec: { size: 2, version: '8.0' },
      });
      const get = () => k.json(['get', 'mysqlcluster', REBORN]);
      const ready = (what: string) =>
        waitFor(
          what,
          async () => {
            const m = await get();
            const c = condition(m, 'Ready');
            return c?.status === 'True' && c.observedGeneration === m.metadata.generation ? m : undefined;
          },
          90_000,
        );
      const lost = (what: RegExp) =>
        waitFor(`Ready=False CredentialsLost: ${what}`, async () => {
          const m = await get();
          const c = condition(m, 'Ready');
          return c?.reason === 'CredentialsLost' && what.test(c.message) ? m : undefined;
        });
      const secretName = `${REBORN}-mysql`;
      const rootPassword = async () =>
        Buffer.from((await k.json(['get', 'secret', secretName])).data['root-password'], 'base64').toString();

      let t0 = Date.now();
      await k.kubectl(['apply', '-f', '-'], manifest);
      await ready('the first cluster Ready');
      const password = await rootPassword();
      const claims = (await k.json(['get', 'pvc'])).items
        .map((c: any) => c.metadata.name)
        .filter((n: string) => n.startsWith(`data-${REBORN}-`))
        .sort();
      assert.deepEqual(claims, [`data-${REBORN}-mysql-0`, `data-${REBORN}-mysql-1`]);
      notes.push(`a cluster of 2 Ready in ${secs(t0)}, its volumes ${claims.join(', ')}`);

      // Deleted (its Secret goes with it, its volumes stay) and created again under its name.
      t0 = Date.now();
      await k.kubectl(['delete', 'mysqlcluster', REBORN, '--wait=true']);
      await waitFor('the old Secret garbage-collected', async () => !(await k.getOrUndefined(['secret', secretName])));
      await k.kubectl(['apply', '-f', '-'], manifest);
      // Its volumes carry the old cluster's uid: held until the user adopts them, by the condition's command.
      const held = await waitFor('Ready=False PersistentVolumeClaimNameTaken naming the old volumes', async () => {
        const m = await get();
        return condition(m, 'Ready')?.reason === 'PersistentVolumeClaimNameTaken' ? m : undefined;
      });
      const adopt = / kubectl (-n \S+ label pvc .*? --overwrite)/.exec(condition(held, 'Ready').message as string);
      assert.ok(adopt, 'the held condition gives the command that adopts the volumes');
      const adoptCommand = adopt[1]!;
      assert.ok(adoptCommand.includes(`mysqlcluster.metaops.io/uid=${held.metadata.uid}`), 'with the new uid');
      await k.kubectl(adoptCommand.split(' '));
      notes.push(`recreated: held on its old volumes until adopted (kubectl ${adoptCommand})`);
      const reborn = await lost(/data volumes of a cluster with this name do/);
      const message = condition(reborn, 'Ready').message as string;
      assert.ok(message.includes(`controller-uid=${reborn.metadata.uid}`), 'the message names the label to adopt by');
      assert.equal(await k.getOrUndefined(['secret', secretName]), undefined, 'no Secret with a new password');
      // Between the two commands: the Secret without the label is not adopted (the instruction of old, which
      // changed nothing), whatever the syncs.
      const command = await followInstruction(
        k,
        message,
        'which lets Metacontroller adopt it: ',
        password,
        async () => {
          await k.moreSyncs('mysqlcluster/sync', REBORN, 2, k.syncsOf('mysqlcluster/sync', REBORN));
          const orphan = await k.json(['get', 'secret', secretName]);
          assert.equal(orphan.metadata.ownerReferences, undefined, 'a Secret without the label is not adopted');
          assert.equal(condition(await get(), 'Ready').reason, 'CredentialsLost');
        },
      );
      const back = await ready('Ready once the Secret is back');
      assert.equal(await rootPassword(), password, 'the old password');
      const secret = await k.json(['get', 'secret', secretName]);
      assert.equal(
        secret.metadata.ownerReferences?.[0]?.uid,
        back.metadata.uid,
        'the Secret adopted by the new cluster',
      );
      assert.ok(secret.data['replication-password'], 'a replication password added');
      notes.push(
        `recreated: ${message.slice(0, message.indexOf(';'))}; the Secret created without the label stayed an orphan over two syncs`,
      );
      notes.push(
        `ran the condition's command word for word (${command.replace(/ --from-literal=\S+/, ' --from-literal=root-password=...')}): Ready in ${secs(t0)}, the Secret adopted`,
      );

      // The root password removed from the Secret: the hook reads it from the configuration Metacontroller last applied
      // (lib/objects.ts lastApplied) and answers its own Secret with it, so Metacontroller puts it back by itself.
      t0 = Date.now();
      await k.kubectl([
        'patch',
        'secret',
        secretName,
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/data/root-password"}]',
      ]);
      await waitFor('the password back by itself', async () => (await rootPassword().catch(() => '')) === password);
      await ready('Ready with the password back');
      notes.push(
        `root-password removed from the Secret: put back by Metacontroller from its last-applied configuration in ${secs(t0)}`,
      );

      // The Secret replaced by one without the key nor that configuration (kubectl replace): CredentialsLost stays,
      // and the message says how to put the key back.
      t0 = Date.now();
      const replaced = await k.json(['get', 'secret', secretName]);
      delete replaced.data['root-password'];
      delete replaced.metadata.annotations?.['metacontroller.k8s.io/last-applied-configuration'];
      await k.kubectl(['replace', '-f', '-'], JSON.stringify(replaced));
      const emptied = await lost(/was deleted or emptied after the cluster was created/);
      await followInstruction(
        k,
        condition(emptied, 'Ready').message,
        'Put that password back under key root-password: ',
        password,
      );
      await ready('Ready once the password is back');
      assert.equal(await rootPassword(), password);
      notes.push(
        `the Secret replaced without root-password: CredentialsLost; the condition's command put it back: Ready in ${secs(t0)}`,
      );
      notes.push(await k.assertQuiet({ parents: [`mysqlclusters/${REBORN}`], hooks: ['mysqlcluster/sync'] }));
      await k.kubectl(['delete', 'mysqlcluster', REBORN, '--wait=true']);
      await k.kubectl(['delete', 'pvc', ...claims, '--wait=false']);
      return notes;
    } finally {
      await kubelet.stop();
    }
  },
};
