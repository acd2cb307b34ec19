// A member claim (spec.pod.persistentVolumeClaimSpec) with `storageClassName: ""` is not provisioned: it binds any
// pre-made PersistentVolume without a class that fits, whoever made it (another tenant's Released or Available volume,
// with its data). It is InvalidSpec naming the field, and no claim carries it, unless the server allows static
// binding (METAOPS_ALLOW_STATIC_VOLUMES=true). volumeName, selector and a dataSourceRef into another namespace stay
// refused either way (test/etcdcluster/claim-tenancy.test.ts).
import t from 'tap';
import { runHook } from '../../lib/operator.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { etcdClaimRequest, quietEtcd } from '../fixtures/etcd.js';

t.test('storageClassName "" is refused by default: no member claim binds a pre-made volume', async (t) => {
  const res = await etcdSync(etcdClaimRequest({ storageClassName: '' }), { etcd: quietEtcd as never, now: FIXED_NOW });
  const claims = res.children.filter((c) => c.kind === 'PersistentVolumeClaim') as any[];
  t.notOk(
    claims.some((c) => c.spec?.storageClassName === ''),
    'no claim asks for no class',
  );
  const conditions = (res.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? [];
  const invalid = conditions.find((c) => c['reason'] === 'InvalidSpec');
  t.match(invalid, { status: 'False', message: /spec\.pod\.persistentVolumeClaimSpec\.storageClassName ""/ });
  t.match(invalid?.['message'], /METAOPS_ALLOW_STATIC_VOLUMES/, 'the message says how an administrator allows it');
});

t.test('with static binding allowed by the server, "" is copied into the member claims', async (t) => {
  const res = await runHook(etcdcluster, 'sync', etcdClaimRequest({ storageClassName: '' }), {
    now: FIXED_NOW,
    clients: { etcd: () => quietEtcd as never },
    settings: { allowStaticVolumes: true },
  });
  const conditions = (res.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? [];
  t.notOk(
    conditions.some((c) => c['reason'] === 'InvalidSpec'),
    'accepted',
  );
  const claims = res.children.filter((c) => c.kind === 'PersistentVolumeClaim') as any[];
  t.equal(claims.length, 1);
  t.equal(claims[0].spec.storageClassName, '');
});

for (const [what, claim] of [
  ['volumeName', { volumeName: 'pv-of-tenant-b' }],
  ['selector', { selector: { matchLabels: { tenant: 'b' } } }],
] as Array<[string, Record<string, unknown>]>) {
  t.test(`${what} stays refused with static binding allowed: it picks volumes made for someone else`, async (t) => {
    const res = await runHook(etcdcluster, 'sync', etcdClaimRequest({ storageClassName: '', ...claim }), {
      now: FIXED_NOW,
      clients: { etcd: () => quietEtcd as never },
      settings: { allowStaticVolumes: true },
    });
    const claims = res.children.filter((c) => c.kind === 'PersistentVolumeClaim') as any[];
    t.notOk(claims.some((c) => what in (c.spec ?? {})));
    const conditions = (res.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? [];
    t.match(
      conditions.find((c) => c['reason'] === 'InvalidSpec'),
      { message: new RegExp(`\\.${what} is not allowed`) },
    );
  });
}
