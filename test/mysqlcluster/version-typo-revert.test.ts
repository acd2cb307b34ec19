// A MySQLCluster whose spec.version was edited to a release no member ever ran (a typo: mysql:8.0.99 does not exist,
// or a tag the cluster's registry cannot pull): the StatefulSet rolls its highest member onto it, and that pod never
// starts (ErrImagePull / ImagePullBackOff). No data directory was written by that version, so going back is no
// downgrade. Issue 31: "a rollout never deletes a working member for a replacement that cannot be created, and a
// reverted spec heals within one resync". The downgrade guard must count what the members ran, not a version they
// were only given: the reverted spec is taken, and the StatefulSet goes back to the version the members run.
import t, { type Test } from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { image, member, ready } from '../fixtures/mysql-versions.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

function cluster(t: Test, version: string) {
  const parent = (v: string) => {
    const r = request('mysqlcluster', { size: 3, version: v });
    r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'default', uid: 'uid-db' };
    return r;
  };
  // The cluster as it ran on 8.0.36, then given `version`: its StatefulSet carries the new image.
  const before = mysqlSync(parent('8.0.36'), FIXED_NOW);
  const given = mysqlSync(
    { ...parent(version), children: objectMap(before.children.map((c) => asObserved(c))) },
    FIXED_NOW,
  );
  t.equal(image(given), `mysql:${version}`, `the StatefulSet was given mysql:${version}`);
  return { parent, children: objectMap(given.children.map((c) => asObserved(c))) };
}

t.test('a version no member ever started on is reverted: no downgrade, the StatefulSet goes back', async (t) => {
  const { parent, children } = cluster(t, '8.0.99');
  // The StatefulSet replaced its highest member: that pod cannot pull mysql:8.0.99; the others run 8.0.36.
  const related = objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), member(2, '8.0.99', false)]);
  const reverted = mysqlSync({ ...parent('8.0.36'), children, related }, FIXED_NOW);
  t.not(
    ready(reverted).reason,
    'InvalidSpec',
    `the revert is taken (Ready: ${ready(reverted).reason}: ${ready(reverted).message})`,
  );
  t.equal(image(reverted), 'mysql:8.0.36', 'the StatefulSet goes back to the version the members run');
});

t.test('the same before the StatefulSet has replaced any member', async (t) => {
  const { parent, children } = cluster(t, '8.0.99');
  const related = objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), member(2, '8.0.36', true)]);
  const reverted = mysqlSync({ ...parent('8.0.36'), children, related }, FIXED_NOW);
  t.not(ready(reverted).reason, 'InvalidSpec', `the revert is taken (${ready(reverted).message})`);
  t.equal(image(reverted), 'mysql:8.0.36');
});

t.test('a version a member may have run is still no way back: the guard keeps refusing the downgrade', async (t) => {
  const { parent, children } = cluster(t, '8.4');
  // Member 2 ran 8.4 (its data directory is 8.4's) and is being created again: no pull failure, no image ID yet.
  const creating = member(2, '8.4', false);
  const statuses = (creating['status'] as any).containerStatuses as any[];
  for (const s of statuses) s.state = { waiting: { reason: 'ContainerCreating' } };
  const reverted = mysqlSync(
    {
      ...parent('8.0.36'),
      children,
      related: objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), creating]),
    },
    FIXED_NOW,
  );
  t.match(
    ready(reverted),
    { reason: 'InvalidSpec', message: /older than 8\.4/ },
    'refused: member 2 may hold 8.4 data',
  );
  t.equal(image(reverted), 'mysql:8.4', 'the StatefulSet is kept');
  // A member not observed at all (its pod deleted, not made again yet) may have run 8.4: refused too.
  const missing = mysqlSync(
    { ...parent('8.0.36'), children, related: objectMap([member(0, '8.0.36', true), member(2, '8.4', false)]) },
    FIXED_NOW,
  );
  t.match(ready(missing), { reason: 'InvalidSpec' }, 'refused while member 1 is not observed');
  // A member that ran 8.4 once (lastState terminated) and now cannot pull it: it ran, so refused.
  const ranOnce = member(2, '8.4', false);
  for (const s of (ranOnce['status'] as any).containerStatuses as any[])
    s.lastState = { terminated: { exitCode: 137, reason: 'OOMKilled' } };
  const again = mysqlSync(
    {
      ...parent('8.0.36'),
      children,
      related: objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), ranOnce]),
    },
    FIXED_NOW,
  );
  t.match(ready(again), { reason: 'InvalidSpec' }, 'refused: member 2 started on 8.4 before');
});
