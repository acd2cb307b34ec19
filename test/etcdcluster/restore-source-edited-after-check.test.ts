// A restore checks before it acts (issue 30.5): the snapshot the restored members fetch is the one that was checked.
// An EtcdRestore's spec is not immutable: when it is edited after its check passed (the old members being dropped),
// the members must still start from the snapshot that was checked (status.restore.s3), or the restore must be
// checked again before anything else is fetched; never from a path (or with credentials) no check ever saw.
import t from 'tap';
import { restoreHook, running, restoreObject } from '../fixtures/etcd-loop.js';

const fetchArgs = (pod: any) => {
  const init = (pod.spec.initContainers ?? []).find((c: any) => c.name === 'fetch-snapshot');
  return init?.args as string[] | undefined;
};
const pathOf = (pod: any) => {
  const a = fetchArgs(pod) ?? [];
  return a[a.indexOf('--s3-path') + 1];
};

for (const [what, edit, check] of [
  [
    'spec.s3.path',
    (r: any) => (r.spec.s3.path = 'bucket/ns/not-checked.db'),
    (t: any, pods: any[]) =>
      t.same(
        pods.map(pathOf),
        pods.map(() => 'bucket/ns/snap.db'),
        'every restored member fetches the snapshot that was checked',
      ),
  ],
  [
    'spec.s3.awsSecret',
    (r: any) => (r.spec.s3.awsSecret = 'other-aws'),
    (t: any, pods: any[]) =>
      t.notOk(
        JSON.stringify(pods).includes('other-aws'),
        'no restored member fetches with credentials the check did not use',
      ),
  ],
] as const) {
  t.test(
    `an EtcdRestore whose ${what} is edited after its check passed: the members start from what was checked`,
    async (t) => {
      const loop = await running({ size: 3 });
      const r = restoreObject('r', '2026-07-01T00:00:00Z');
      loop.related = [r];
      loop.check = 'running';
      await loop.step();
      t.match(loop.s().restore, { uid: 'uid-r', phase: 'Checking' });
      loop.check = { succeeded: true };
      await loop.step();
      t.match(loop.s().restore, { uid: 'uid-r', phase: 'Replacing', s3: { path: 'bucket/ns/snap.db' } });
      t.same(loop.pods(), [], 'the old members are dropped: past the point of no return');
      // The user (or a GitOps tool re-applying another revision of the manifest) edits the EtcdRestore now.
      edit(r);
      let restored: any[] = [];
      for (let i = 0; i < 4 && restored.length === 0; i++) {
        await loop.step();
        restored = loop.children.filter((c) => c.kind === 'Pod' && fetchArgs(c));
      }
      t.equal(restored.length, 3, 'the restored members are started');
      check(t, restored);
    },
  );
}

t.test('the EtcdRestore that succeeded names the snapshot restored, not its spec as edited since', async (t) => {
  const loop = await running({ size: 3 });
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  loop.related = [r];
  loop.check = 'running';
  await loop.step();
  loop.check = { succeeded: true };
  await loop.step();
  (r['spec'] as any).s3.path = 'bucket/ns/not-checked.db';
  for (let i = 0; i < 3; i++) await loop.step();
  // The restored members serve: their pods Ready (their probe asks etcd).
  for (const p of loop.pods()) loop.podStatus.set(p, { conditions: [{ type: 'Ready', status: 'True' }] });
  await loop.step();
  t.match(loop.s().restore, { phase: 'Restored', s3: { path: 'bucket/ns/snap.db' } });
  const status = restoreHook(loop, r) as any;
  t.equal(status.succeeded, true);
  const ready = status.conditions.find((c: any) => c.type === 'Ready');
  t.match(ready.message, /runs from the snapshot bucket\/ns\/snap\.db$/);
  t.equal(restoreHook(loop, r)['succeeded'], true, 'and it stays so');
});
