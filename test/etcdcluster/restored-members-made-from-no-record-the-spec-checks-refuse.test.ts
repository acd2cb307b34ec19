// A restore records what its check started the restored members as (status.restore.checked: version, repository,
// busyboxImage, etcdEnv, resources) with the drop of the old members, and the restored members are made from that
// record, whatever the spec says by then. The record lives in the status, which whoever may write
// `etcdclusters/status` can write, and it was read by type only: an etcdEnv the spec's allowlist refuses (a proxy
// for the members' peer traffic), a Secret reference the server does not allow, an image the spec's rules refuse,
// a value past the spec's size bounds, all went into every restored member.
//
// Must hold: the record is checked as the spec is before anything is made from it; one the checks refuse makes no
// member: the restore ends failed (RestoreFailed, a Warning Event) naming the record's field, the record not kept,
// nothing bootstrapped over the cluster; a record the checks accept still makes the restored members from it. Each
// answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { conditionEvents } from '../../lib/index.js';
import { ETCDCLUSTER_EVENTS } from '../../hooks/etcdcluster/events.js';
import { answeredPod, restoreObject, running, type Loop } from '../fixtures/etcd-loop.js';

/** A running cluster whose restore's check passed (Replacing: the old members dropped), its record as `edit` leaves it. */
async function replacing(edit: (checked: Record<string, unknown>) => void): Promise<Loop> {
  const loop = await running({ size: 3, version: '3.6.9', pod: { etcdEnv: [{ name: 'GOMAXPROCS', value: '2' }] } });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step(); // Checking
  await loop.step(); // Replacing
  // Whoever may write the status edits the record now, between the drop and the restored members.
  edit(loop.s().restore.checked);
  loop.etcd.members = [];
  loop.etcd.up.clear();
  return loop;
}

/** Every container and init step of every member pod the loop answered, as JSON. */
const membersText = (loop: Loop): string => JSON.stringify(loop.pods().map((name) => answeredPod(loop, name)));

const refused: Array<{ what: string; field: RegExp; edit: (c: Record<string, unknown>) => void; made: string }> = [
  {
    what: 'an etcdEnv the allowlist refuses (a proxy for the peer traffic)',
    field: /status\.restore\.checked\.etcdEnv\[0\]\.name HTTPS_PROXY/,
    edit: (c) => (c['etcdEnv'] = [{ name: 'HTTPS_PROXY', value: 'http://proxy.tenant-b.svc:3128' }]),
    made: 'proxy.tenant-b.svc',
  },
  {
    what: 'an etcd variable the allowlist refuses (where the data lives)',
    field: /status\.restore\.checked\.etcdEnv\[0\]\.name ETCD_DATA_DIR/,
    edit: (c) => (c['etcdEnv'] = [{ name: 'ETCD_DATA_DIR', value: '/var/run/elsewhere' }]),
    made: '/var/run/elsewhere',
  },
  {
    what: 'a Secret reference the server does not allow (METAOPS_ETCD_ALLOW_REFERENCES)',
    field: /status\.restore\.checked\.etcdEnv\[0\]\.valueFrom\.secretKeyRef is not allowed/,
    edit: (c) => (c['etcdEnv'] = [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'admin-token', key: 'k' } } }]),
    made: 'admin-token',
  },
  {
    what: 'a repository the image rules refuse',
    field: /status\.restore\.checked\.repository and status\.restore\.checked\.version make the image/,
    edit: (c) => (c['repository'] = 'quay.io//etcd'),
    made: 'quay.io//etcd',
  },
  {
    what: 'a busyboxImage the image rules refuse',
    field: /status\.restore\.checked\.busyboxImage "busybox;sh"/,
    edit: (c) => (c['busyboxImage'] = 'busybox;sh'),
    made: 'busybox;sh',
  },
  {
    what: 'a version that is not one',
    field: /status\.restore\.checked\.version is "3\.6\.9 --x"/,
    edit: (c) => (c['version'] = '3.6.9 --x'),
    made: '3.6.9 --x',
  },
  {
    what: 'an etcdEnv entry past its size bound (8 KiB)',
    field: /status\.restore\.checked\.etcdEnv\[0\] is \d+ bytes as JSON: at most 8192/,
    edit: (c) => (c['etcdEnv'] = [{ name: 'TZ', value: `Z${'z'.repeat(9000)}` }]),
    made: 'z'.repeat(9000),
  },
  {
    what: 'more etcdEnv entries than the bound (64)',
    field: /status\.restore\.checked\.etcdEnv/,
    edit: (c) => (c['etcdEnv'] = Array.from({ length: 65 }, (_, i) => ({ name: `V${i}`, value: 'x' }))),
    made: '"V64"',
  },
  {
    what: 'resources past their size bound (4 KiB)',
    field: /status\.restore\.checked\.resources is \d+ bytes as JSON: at most 4096/,
    edit: (c) => {
      c['etcdEnv'] = [{ name: 'GOMEMLIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }];
      c['resources'] = { limits: { memory: '1Gi' }, claims: [{ name: 'c'.repeat(5000) }] };
    },
    made: 'c'.repeat(5000),
  },
  {
    what: 'a record that is not one (a version not a string)',
    field: /status\.restore\.checked is not a record of what the check started/,
    edit: (c) => (c['version'] = 3.6),
    made: 'never',
  },
];

for (const r of refused)
  t.test(`a record with ${r.what}: no member made from it, the restore failed naming the field`, async (t) => {
    const loop = await replacing(r.edit);
    const before = loop.parent();
    for (let i = 0; i < 3; i++) await loop.step();
    t.notOk(membersText(loop).includes(r.made), 'no member made from the record refused');
    t.same(loop.pods(), [], 'no member made at all');
    const restore = loop.s().restore;
    t.equal(restore?.phase, 'Failed', 'the restore ended failed');
    t.match(restore?.reason, r.field, `the reason names the field: ${restore?.reason}`);
    t.equal(restore?.checked, undefined, 'the record refused is not kept');
    t.equal(loop.s().reason, 'RestoreFailed', 'the cluster says RestoreFailed');
    const available = loop.s().conditions.find((c: any) => c.type === 'Available');
    t.match(available, { status: 'False', reason: 'RestoreFailed', message: r.field }, 'Available names the field');
    const warnings = conditionEvents(before, loop.s(), ETCDCLUSTER_EVENTS).filter((e) => e.type === 'Warning');
    t.ok(
      warnings.some((e) => e.reason === 'RestoreFailed' && r.field.test(e.note)),
      'a Warning Event names the field',
    );
    // Nothing is bootstrapped over the cluster later on either.
    for (let i = 0; i < 3; i++) await loop.step();
    t.same(loop.pods(), [], 'still no member: a new EtcdRestore restores it');
  });

t.test('a record the checks accept makes the restored members from it', async (t) => {
  const loop = await replacing((c) => (c['etcdEnv'] = [{ name: 'GOMAXPROCS', value: '4' }]));
  for (let i = 0; i < 3; i++) await loop.step();
  t.equal(loop.pods().length, 3, `restored members: ${loop.pods().join(', ')}`);
  for (const name of loop.pods()) {
    const env = (answeredPod(loop, name) as any).spec.containers.find((c: any) => c.name === 'etcd').env;
    t.ok(
      env.some((e: any) => e.name === 'GOMAXPROCS' && e.value === '4'),
      `${name} takes the record's env: ${JSON.stringify(env)}`,
    );
  }
  t.equal(loop.s().restore.phase, 'Restoring');
});

t.test('a reference the server allows, recorded, is no refusal', async (t) => {
  const loop = await running(
    { size: 3, version: '3.6.9', pod: { etcdEnv: [{ name: 'GOMAXPROCS', value: '2' }] } },
    'e',
    { allowReferences: true },
  );
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  await loop.step();
  loop.s().restore.checked.etcdEnv = [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'own', key: 'k' } } }];
  loop.etcd.members = [];
  loop.etcd.up.clear();
  for (let i = 0; i < 3; i++) await loop.step();
  t.equal(loop.pods().length, 3, 'the restored members are made');
  t.ok(membersText(loop).includes('"own"'), 'from the record');
});
