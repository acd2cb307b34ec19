// status.version is the record of the versions a MySQLCluster's members ran (a mysql container that started on its
// image), the downgrade guard's floor. A version a member ran is kept while its pod waits on a pull or is gone, and
// dropped once a member runs a newer one (the floor is then the newer one); a version no member started on is never
// recorded; and the record stays short enough to be read back (a record too long to read would be no floor at all).
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { image, member as memberOn, parent, ready } from '../fixtures/mysql-versions.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

/** Member `ordinal` of cluster db on `version`: running, or Pending on it (not started yet: ContainerCreating). */
const member = (ordinal: number, version: string, running: boolean) => memberOn(ordinal, version, running, 'creating');

const version = (res: any) => (res.status as any).version;

t.test('an upgrade done: the older version is dropped once every member runs the newer one', async (t) => {
  const mid = mysqlSync(
    {
      ...parent({ size: 3, version: '8.4.3' }, { version: '8.0.36' }),
      related: objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), member(2, '8.4.3', true)]),
    },
    FIXED_NOW,
  );
  t.equal(version(mid), '8.0.36, 8.4.3', 'mid-upgrade: both');
  const done = mysqlSync(
    {
      ...parent({ size: 3, version: '8.4.3' }, mid.status as Record<string, unknown>),
      related: objectMap([0, 1, 2].map((i) => member(i, '8.4.3', true))),
    },
    FIXED_NOW,
  );
  t.equal(version(done), '8.4.3', 'every member runs 8.4.3: 8.0.36 is no floor any more');
  // A member of a version recorded that is made again and not started yet: the record holds what ran.
  const remade = mysqlSync(
    {
      ...parent({ size: 3, version: '8.4.3' }, done.status as Record<string, unknown>),
      related: objectMap([member(0, '8.4.3', true), member(1, '8.4.3', true), member(2, '8.4.3', false)]),
    },
    FIXED_NOW,
  );
  t.equal(version(remade), '8.4.3');
});

t.test('a version a member was given and has not started on is not recorded; the one that ran is', async (t) => {
  // 8.0.36 ran; the upgrade to 8.4.3 has made member 2 again, its container not started yet.
  const res = mysqlSync(
    {
      ...parent({ size: 3, version: '8.4.3' }, { version: '8.0.36' }),
      related: objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), member(2, '8.4.3', false)]),
    },
    FIXED_NOW,
  );
  t.equal(version(res), '8.0.36', '8.4.3 is not recorded before a member starts on it');
  // A version recorded that no observed member runs, older than one they run, is dropped; a newer one is kept.
  const kept = mysqlSync(
    {
      ...parent({ size: 1, version: '8.4.3' }, { version: '8.0.30, 8.4.3, 9.1.0' }),
      related: objectMap([member(0, '8.4.3', true)]),
    },
    FIXED_NOW,
  );
  t.equal(version(kept), '8.4.3, 9.1.0', 'older than what runs: dropped; newer: kept as the floor');
  t.match(
    ready(kept),
    { status: 'False', reason: 'InvalidSpec', message: /older than 9\.1\.0, which the members ran \(status\.version/ },
    'and 8.4.3 is refused below the 9.1.0 a member ran',
  );
  // A floating tag recorded (8.4: the newest 8.4.x when it ran) is not outdone by 8.4.3: both are kept.
  const floating = mysqlSync(
    { ...parent({ size: 1, version: '8.4' }, { version: '8.4' }), related: objectMap([member(0, '8.4.3', true)]) },
    FIXED_NOW,
  );
  t.equal(version(floating), '8.4, 8.4.3');
  // Garbage in the record (not a version) is not kept.
  const garbage = mysqlSync(
    {
      ...parent({ size: 1, version: '8.4.3' }, { version: 'latest, , 8.4.3' }),
      related: objectMap([member(0, '8.4.3', true)]),
    },
    FIXED_NOW,
  );
  t.equal(version(garbage), '8.4.3');
});

t.test('a record at the length limit keeps the newest versions and stays readable: the floor holds', async (t) => {
  // 28 versions written without spaces: 195 characters, read back; joined with ", " they would be 222.
  const tags = Array.from({ length: 28 }, (_, i) => `8.0.${30 + i}`);
  const written = tags.join(',');
  t.ok(written.length <= 200, `the record as written is read back (${written.length} characters)`);
  const children = objectMap(
    mysqlSync(parent({ size: 0, version: '8.0.57' }, { version: written }), FIXED_NOW).children.map((c) => {
      const o = asObserved(c);
      if (o.kind === 'StatefulSet') (o['spec'] as any).replicas = 0;
      return o;
    }),
  );
  const atZero = mysqlSync(
    { ...parent({ size: 0, version: '8.0.57' }, { version: written }), children, related: {} },
    FIXED_NOW,
  );
  const kept = version(atZero) as string;
  t.ok(kept.length <= 200, `status.version is at most 200 characters (${kept.length})`);
  t.match(kept, /8\.0\.57/, 'the newest is kept');
  t.notMatch(kept, /8\.0\.30/, 'the oldest gives way');
  const down = mysqlSync(
    { ...parent({ size: 1, version: '8.0.50' }, atZero.status as Record<string, unknown>, 2), children, related: {} },
    FIXED_NOW,
  );
  t.match(ready(down), { reason: 'InvalidSpec', message: /older than 8\.0\.57/ }, 'the floor is read back');
  t.not(image(down), 'mysql:8.0.50');
});

t.test('a version a member starts on while the spec is refused is recorded too', async (t) => {
  // The StatefulSet was given 8.4.3; the spec is then set to 8.0.30, refused (older than the 8.0.36 that runs), and
  // the StatefulSet, kept, goes on: member 2 starts on 8.4.3 while the refusal stands.
  const given = mysqlSync(
    {
      ...parent({ size: 3, version: '8.4.3' }, { version: '8.0.36' }),
      related: objectMap([0, 1, 2].map((i) => member(i, '8.0.36', true))),
    },
    FIXED_NOW,
  );
  const children = objectMap(given.children.map((c) => asObserved(c)));
  const refused = mysqlSync(
    {
      ...parent({ size: 3, version: '8.0.30' }, given.status as Record<string, unknown>, 2),
      children,
      related: objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), member(2, '8.4.3', true)]),
    },
    FIXED_NOW,
  );
  t.match(ready(refused), { reason: 'InvalidSpec' }, '8.0.30 is refused');
  t.equal(version(refused), '8.0.36, 8.4.3', 'member 2 ran 8.4.3: recorded while the spec is refused');
  // Member 2 is made again on a node that cannot pull mysql:8.4.3; the spec is set to 8.0.36.
  const pulling = member(2, '8.4.3', false);
  for (const s of (pulling['status'] as any).containerStatuses as any[])
    s.state = { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "mysql:8.4.3"' } };
  const down = mysqlSync(
    {
      ...parent({ size: 3, version: '8.0.36' }, refused.status as Record<string, unknown>, 3),
      children,
      related: objectMap([member(0, '8.0.36', true), member(1, '8.0.36', true), pulling]),
    },
    FIXED_NOW,
  );
  t.match(ready(down), { reason: 'InvalidSpec', message: /older than 8\.4\.3/ }, 'member 2 ran 8.4.3: refused');
  t.equal(image(down), 'mysql:8.4.3', 'the StatefulSet is kept');
  // A refusal with no member started and nothing recorded records no version.
  const fresh = mysqlSync(parent({ size: 1, version: '8.0.30' }, { version: 'latest' }), FIXED_NOW);
  t.equal(version(fresh), undefined);
});
