// The history of restores carried out a cluster's status keeps (status.restoresCarriedOut, etcdcommon): each name
// and snapshot once, the newest last, at most RESTORES_KEPT; read back bounded and only in its own shape; an
// EtcdRestore of a name and snapshot in it is one carried out already, a later restore since or not.
import t from 'tap';
import {
  alreadyRestored,
  RESTORES_KEPT,
  restoresCarriedOut,
  withRestoreCarriedOut,
} from '../../hooks/etcdcommon/index.js';

const restored = (name: string, path: string, endpoint?: string) => ({
  uid: `uid-${name}`,
  name,
  phase: 'Restored' as const,
  s3: { path, awsSecret: 'aws', ...(endpoint ? { endpoint } : {}) },
});

t.test('a restore carried out joins the history once, the newest last, bounded', async (t) => {
  let kept = withRestoreCarriedOut([], restored('r', 'b/ns/1.db'));
  t.same(kept, [{ name: 'r', path: 'b/ns/1.db' }]);
  t.same(
    withRestoreCarriedOut(kept, { ...restored('r2', 'b/ns/2.db'), phase: 'Restoring' }),
    kept,
    'not while running',
  );
  kept = withRestoreCarriedOut(kept, restored('r2', 'b/ns/2.db', 'https://s3.example'));
  kept = withRestoreCarriedOut(kept, restored('r', 'b/ns/1.db'));
  t.same(kept, [
    { name: 'r2', path: 'b/ns/2.db', endpoint: 'https://s3.example' },
    { name: 'r', path: 'b/ns/1.db' },
  ]);
  for (let i = 0; i < 40; i++) kept = withRestoreCarriedOut(kept, restored(`x${i}`, `b/ns/${i}.db`));
  t.equal(kept.length, RESTORES_KEPT, 'at most RESTORES_KEPT');
  t.equal(kept.at(-1)?.name, 'x39', 'the newest last');
});

t.test('the history read back: bounded, its own shape only', async (t) => {
  const list = [
    { name: 'a', path: 'p' },
    { name: 1, path: 'p' },
    'text',
    null,
    { name: 'b', path: 'q', endpoint: 5 },
    ...Array.from({ length: 30 }, (_, i) => ({ name: `n${i}`, path: 'p' })),
  ];
  const read = restoresCarriedOut({ status: { restoresCarriedOut: list } });
  t.ok(read.length <= RESTORES_KEPT, 'bounded');
  t.ok(
    read.every((e) => typeof e.name === 'string' && typeof e.path === 'string'),
    'only entries of its shape',
  );
  t.same(restoresCarriedOut({ status: { restoresCarriedOut: 'x' } }), []);
  t.same(restoresCarriedOut(undefined), []);
});

t.test('an EtcdRestore named in the history was carried out, the last record another', async (t) => {
  const history = [{ name: 'r', path: 'b/ns/1.db' }];
  const last = restored('r2', 'b/ns/2.db');
  t.equal(alreadyRestored(last, 'r', { path: 'b/ns/1.db' }, history), true, 'r with its snapshot');
  t.equal(alreadyRestored(last, 'r', { path: 'b/ns/other.db' }, history), false, 'r with another snapshot');
  t.equal(
    alreadyRestored(last, 'r', { path: 'b/ns/1.db', endpoint: 'https://other' }, history),
    false,
    'another endpoint',
  );
  t.equal(alreadyRestored(last, 'r3', { path: 'b/ns/1.db' }, history), false, 'another name');
  t.equal(alreadyRestored(last, 'r2', { path: 'b/ns/2.db' }, []), true, 'the last record still counts');
});
