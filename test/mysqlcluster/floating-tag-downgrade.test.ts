// MySQLCluster downgrades through floating tags (issue 31, 5: "a downgrade is not guarded"). The image is
// mysql:<version>, and a tag with fewer parts names the newest release under it: mysql:8 is the newest 8.x (8.4 and
// later), not an 8.0. A cluster that runs mysql:8 has a data directory an 8.4 wrote; moving it to spec.version "8.0"
// (or "8.0.40") is a downgrade across series that MySQL refuses (the members crash-loop one after the other as the
// StatefulSet rolls). Comparing only the parts both tags name (8 against 8.0: alike) lets it through.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const image = (res: any) =>
  res.children.find((c: any) => c.kind === 'StatefulSet')?.spec.template.spec.containers[0].image;

t.test('a cluster running mysql:8 is not moved to an 8.0 release', async (t) => {
  const first = mysqlSync(request('mysqlcluster', { size: 3, version: '8' }), FIXED_NOW);
  t.equal(image(first), 'mysql:8');
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  for (const version of ['8.0', '8.0.40']) {
    const down = mysqlSync(request('mysqlcluster', { size: 3, version }, { children: observed }), FIXED_NOW);
    t.equal(image(down), 'mysql:8', `${version}: the StatefulSet keeps mysql:8 (${ready(down).reason})`);
    t.match(ready(down), { reason: 'InvalidSpec' }, `${version}: refused as a downgrade`);
  }
});

t.test(
  'the rule for floating tags: a tag is as new as another only if it names no more of the agreeing parts',
  async (t) => {
    const { atLeastAsNew } = await import('../../hooks/mysqlcluster/sync.js');
    t.ok(atLeastAsNew([8], [8, 0]), '8 after 8.0');
    t.ok(atLeastAsNew([8, 4], [8, 0, 40]), '8.4 after 8.0.40');
    t.ok(atLeastAsNew([8, 0, 40], [8, 0, 40]), 'the same release');
    t.notOk(atLeastAsNew([8, 0], [8]), '8.0 after 8 (8 may be 8.4)');
    t.notOk(atLeastAsNew([8, 0, 40], [8, 0]), '8.0.40 after 8.0 (8.0 may be 8.0.41)');
    t.notOk(atLeastAsNew([8, 0, 40], [8, 4]), '8.0.40 after 8.4');
  },
);

t.test('a cluster running mysql:8.0 may move to mysql:8 (the newest 8.x), and keeps mysql:8 after', async (t) => {
  const first = mysqlSync(request('mysqlcluster', { size: 3, version: '8.0' }), FIXED_NOW);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const up = mysqlSync(request('mysqlcluster', { size: 3, version: '8' }, { children: observed }), FIXED_NOW);
  t.equal(image(up), 'mysql:8');
  t.not(ready(up).reason, 'InvalidSpec');
});
