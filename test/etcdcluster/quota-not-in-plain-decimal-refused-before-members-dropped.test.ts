// etcd reads ETCD_QUOTA_BACKEND_BYTES as Go's flag package does (strconv.ParseInt base 0: a leading 0 is octal,
// "02000000" is 524288 bytes; "0x" hex, "0b" binary, "+", "_" between digits), and Kubernetes expands $(VAR) of
// earlier variables of the list before etcd sees it (seen on real etcd 3.6.9: ETCD_QUOTA_BACKEND_BYTES=02000000 logs
// "quota-backend-bytes":524288). The hook compares the quota with the data before it makes a member or drops the
// running members for a restore (quota.ts, restore.ts quotaProblem): read as a decimal number, "02000000" let a 1 MB
// snapshot "fit", the running members were dropped and the restored ones refused every write; a hex, underscored or
// $(VAR) value was not compared at all. What must hold: a quota not written as plain decimal bytes is refused
// (InvalidSpec naming the field) before anything is made or dropped, the running members kept; plain decimal bytes
// read as etcd reads them.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { quotaProblem, restoredQuota } from '../../hooks/etcdcluster/restore.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

const env = (value: unknown, more: unknown[] = []) => [...more, { name: 'ETCD_QUOTA_BACKEND_BYTES', value }];
const withQuota = (value: string) => ({ size: 3, pod: { etcdEnv: env(value) } }) as unknown as EtcdClusterSpec;
const problem = (etcdEnv: unknown[]) =>
  etcdValueProblem(etcdParent({ size: 3, version: '3.6.9', pod: { etcdEnv } }) as never);

t.test('a quota spelled other than in plain decimal bytes is refused, naming the field', async (t) => {
  for (const value of [
    '02000000',
    '0x200000',
    '0X200000',
    '0o7',
    '0b1000',
    '2_097_152',
    '+2097152',
    ' 2097152',
    '2097152 ',
    '2e6',
    '2M',
    '-0',
    '00',
    '9223372036854775808',
    '-9223372036854775809',
    '',
  ])
    t.match(
      problem(env(value)),
      /spec\.pod\.etcdEnv\[0\] \(ETCD_QUOTA_BACKEND_BYTES\).*plain decimal bytes/,
      JSON.stringify(value),
    );
  t.match(
    problem(env('$(QUOTA)', [{ name: 'QUOTA', value: '2097152' }])),
    /spec\.pod\.etcdEnv\[1\] \(ETCD_QUOTA_BACKEND_BYTES\) is "\$\(QUOTA\)"/,
    '$(VAR), even of a value written out in the list',
  );
  t.match(
    problem([
      {
        name: 'ETCD_QUOTA_BACKEND_BYTES',
        valueFrom: { resourceFieldRef: { containerName: 'etcd', resource: 'limits.memory' } },
      },
    ]),
    /spec\.pod\.etcdEnv\[0\] \(ETCD_QUOTA_BACKEND_BYTES\) takes its value from valueFrom/,
    'a valueFrom',
  );
  t.match(problem([...env('2097152'), ...env('02000000')]), /etcdEnv\[1\]/, 'every entry of that name is checked');
  for (const value of ['2097152', '0', '-1', '9223372036854775807', '-9223372036854775808'])
    t.equal(problem(env(value)), undefined, `${value}: accepted`);
});

t.test('plain decimal bytes read as etcd reads them', async (t) => {
  t.equal(restoredQuota(withQuota('2097152')), 2 * 1024 ** 2);
  t.equal(
    restoredQuota(withQuota('9223372036854775807')),
    Number.MAX_SAFE_INTEGER,
    'past exact integers: far above any data',
  );
  t.equal(restoredQuota(withQuota('02000000')), undefined, 'a spelling the checks refuse is not read');
  t.ok(quotaProblem(withQuota('524288'), 1_000_000), 'a 1 MB snapshot is over a 524288-byte quota');
});

t.test('a restore with an octal-spelled quota: refused before anything, the running members kept', async (t) => {
  const loop = await running({ size: 3 });
  const before = loop.children.filter((c) => c.kind === 'Pod');
  loop.spec = { ...loop.spec, pod: { etcdEnv: env('02000000') } };
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = { succeeded: true, size: 1_000_000, sha256: 'a'.repeat(64) } as unknown as { succeeded: boolean };
  for (let i = 0; i < 5; i++) await loop.step();
  t.match(
    loop.s().conditions?.find((c: any) => c.type === 'Ready'),
    {
      status: 'False',
      reason: 'InvalidSpec',
      message: /spec\.pod\.etcdEnv\[0\] \(ETCD_QUOTA_BACKEND_BYTES\) is "02000000"/,
    },
    'InvalidSpec naming the field',
  );
  t.same(loop.etcd.calls, [], 'no membership change');
  t.notOk(loop.checkPod(), 'no check started');
  t.notMatch(loop.s().restore ?? {}, { phase: /Replacing|Restoring|Restored/ }, 'no restore carried out');
  t.same(
    loop.children.filter((c) => c.kind === 'Pod'),
    before,
    'the running members kept as they were',
  );
});
