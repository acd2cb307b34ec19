// An EtcdBackup whose spec is refused before the sync (InvalidSpec: the schema, the parent's name) keeps of its
// observed Job or CronJob only what today's tenancy rules (hooks/etcdcommon/tenancy.ts, issue 29.6) allow: a
// backup child an older metaops made under looser rules (another namespace's S3 prefix, the node's own credentials,
// an endpoint no longer allowlisted, another namespace's etcd, the whole Secret as environment) is not kept while the
// tenant leaves the spec invalid for an unrelated field; a child today's rules allow is kept as it is (a typo never
// drops a valid schedule). Tenant A (team-a, its EtcdCluster web), tenant B (team-b) share the bucket `shared`.
import t from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { runPure } from '../../lib/operator.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const A = 'team-a';
const B = 'team-b';
const own = { path: `shared/${A}/web`, awsSecret: 'a-aws' };
const hourly = { backupIntervalInSecond: 3600, maxBackups: 3 };

function backup(
  spec: Record<string, unknown>,
  o: { env?: NodeJS.ProcessEnv; children?: KubeObject[]; name?: string } = {},
): CompositeSyncResponse {
  return runPure(
    etcdbackup,
    'sync',
    backupRequest({
      namespace: A,
      name: o.name ?? 'a-backup',
      spec,
      clusters: [etcdCluster('web', A)],
      children: o.children ?? [],
    }),
    { now: FIXED_NOW, settings: etcdSettings({ env: { METAOPS_IMAGE: 'metaops:test', ...o.env } }) },
  );
}

/** The child today's hook makes for `spec` under the server's environment `env` (an older, looser one). */
function made(spec: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): KubeObject {
  const res = backup(spec, { env });
  if (res.children.length !== 1) throw new Error(`no child made: ${JSON.stringify(res.status)}`);
  return res.children[0] as KubeObject;
}

const podSpecOf = (child: any) =>
  (child.kind === 'CronJob' ? child.spec.jobTemplate.spec : child.spec).template.spec as Record<string, any>;

/** `child` with its backup container's flag `flag` set to `value` (what an older metaops wrote). */
function withArg(child: KubeObject, flag: string, value: string): KubeObject {
  const copy = structuredClone(child);
  const args: string[] = podSpecOf(copy).containers[0].args;
  args[args.indexOf(flag) + 1] = value;
  return copy;
}

const ready = (res: CompositeSyncResponse) => (res.status as any).conditions[0];
/** A spec refused by the schema for a field that has nothing to do with where the backup reaches. */
const typo = (spec: Record<string, unknown>) => ({
  ...spec,
  backupPolicy: { ...(spec['backupPolicy'] as object), maxBackups: 'three' },
});

const good = { clusterName: 'web', backupPolicy: hourly, s3: own };

t.test('a child an older rule allowed that the rules refuse now is not kept while the spec is refused', async (t) => {
  const today = made(good);
  const cases: [string, KubeObject][] = [
    ["another namespace's S3 prefix", withArg(today, '--s3-path', `shared/${B}/orders`)],
    ['a path outside any prefix', withArg(today, '--s3-path', 'shared/orders')],
    ['a path climbing out of its prefix', withArg(today, '--s3-path', `shared/${A}/../${B}/orders`)],
    ["another namespace's etcd", withArg(today, '--endpoints', `http://orders-client.${B}.svc.cluster.local:2379`)],
    ["an address of the tenant's choosing", withArg(today, '--endpoints', 'http://10.96.0.10:2379')],
    [
      "its own cluster by a relative name (ndots: looked up in namespace svc's first)",
      withArg(today, '--endpoints', `http://web-client.${A}.svc:2379`),
    ],
    [
      "the node's own credentials (no awsSecret), once allowed",
      made(
        { clusterName: 'web', backupPolicy: hourly, s3: { path: own.path } },
        { METAOPS_BACKUP_AMBIENT_CREDENTIALS: A },
      ),
    ],
    [
      'an S3 endpoint no longer allowlisted',
      made(
        { clusterName: 'web', backupPolicy: hourly, s3: { ...own, endpoint: 'https://s3.evil.example.com' } },
        { METAOPS_BACKUP_S3_ENDPOINTS: 'https://s3.evil.example.com' },
      ),
    ],
    [
      'an etcd endpoint no longer allowlisted',
      made(
        { etcdEndpoints: ['http://10.0.0.9:2379'], backupPolicy: hourly, s3: own },
        { METAOPS_BACKUP_ETCD_ENDPOINTS: 'http://10.0.0.9:2379' },
      ),
    ],
  ];
  // The whole Secret as environment (the layout before 04d78e2: NODE_OPTIONS, AWS_ENDPOINT_URL of the tenant's).
  const envFrom = structuredClone(today);
  Object.assign(podSpecOf(envFrom).containers[0], { env: [], envFrom: [{ secretRef: { name: 'a-aws' } }] });
  cases.push(['the whole Secret as environment', envFrom]);
  // A second container beside the backup one (not a layout metaops makes).
  const second = structuredClone(today);
  podSpecOf(second).containers.push({ name: 'other', image: 'evil', command: ['sh'] });
  cases.push(['a second container', second]);
  for (const [what, child] of cases) {
    const res = backup(typo(good), { children: [child] });
    t.match(ready(res), { status: 'False', reason: 'InvalidSpec', message: /maxBackups/ }, `${what}: InvalidSpec`);
    t.same(res.children, [], `${what}: the CronJob is not kept`);
  }
  // What the answer would keep is read: the observed child's values, in the shape Metacontroller last applied
  // (lib/objects.ts keepObserved). Its last-applied annotation is text the tenant may write: a child that runs what
  // the rules refuse is not kept however allowed its annotation says it is, and one that runs what they allow is kept
  // with its own values, never the annotation's.
  const refusedLive = withArg(today, '--s3-path', `shared/${B}/orders`);
  refusedLive.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(today) };
  t.same(backup(typo(good), { children: [refusedLive] }).children, [], 'the observed form is the one checked');
  const allowedLive = structuredClone(today);
  allowedLive.metadata.annotations = {
    [LAST_APPLIED]: JSON.stringify(withArg(today, '--s3-path', `shared/${B}/orders`)),
  };
  t.same(
    backup(typo(good), { children: [allowedLive] }).children,
    [today],
    'an allowed child is kept with its own values, not the annotation the tenant rewrote',
  );
  // A one-off Job the same way.
  const job = withArg(made({ clusterName: 'web', s3: own }), '--s3-path', `shared/${B}/orders`);
  const res = backup({ clusterName: 'web', s3: own, backupPolicy: { maxBackups: 'three' } }, { children: [job] });
  t.match(ready(res), { reason: 'InvalidSpec' });
  t.same(res.children, [], "a one-off Job writing into another namespace's prefix is not kept either");
});

t.test('a child the rules allow now is kept as it is while the spec is refused for a typo', async (t) => {
  const cron = made(good);
  const res = backup(typo(good), { children: [cron] });
  t.match(ready(res), { reason: 'InvalidSpec', message: /maxBackups/ });
  t.same(res.children, [cron], 'the CronJob is kept, unchanged: a typo drops no valid schedule');
  t.same(backup(typo(good), { children: [cron] }), res, 'the same answer again (quiet at rest)');

  // What the server's settings allow today is kept too: an allowlisted endpoint, the node's credentials where the
  // admin allows them for this namespace, an etcd endpoint on the allowlist.
  for (const [what, spec, env] of [
    [
      'an allowlisted S3 endpoint',
      { clusterName: 'web', backupPolicy: hourly, s3: { ...own, endpoint: 'https://minio.example.com' } },
      { METAOPS_BACKUP_S3_ENDPOINTS: `${A}=https://minio.example.com` },
    ],
    [
      'ambient credentials allowed for the namespace',
      { clusterName: 'web', backupPolicy: hourly, s3: { path: own.path } },
      { METAOPS_BACKUP_AMBIENT_CREDENTIALS: A },
    ],
    [
      'an allowlisted etcd endpoint',
      { etcdEndpoints: ['http://10.0.0.9:2379'], backupPolicy: hourly, s3: own },
      { METAOPS_BACKUP_ETCD_ENDPOINTS: 'http://10.0.0.9:2379' },
    ],
    ['TLS to its own cluster', { clusterName: 'web', clientTLSSecret: 'web-tls', backupPolicy: hourly, s3: own }, {}],
  ] as [string, Record<string, unknown>, NodeJS.ProcessEnv][]) {
    const child = made(spec, env);
    t.same(backup(typo(spec), { env, children: [child] }).children, [child], `${what}: kept`);
  }

  // Refused for another reason than the schema (the parent's name too long for its CronJob): the same rule.
  const long = 'b'.repeat(50);
  const kept = made(good);
  const byName = backup(good, { name: long, children: [kept] });
  t.match(ready(byName), { reason: 'InvalidSpec' });
  t.same(byName.children, [kept], 'a name refused keeps an allowed child');
  const refusedChild = withArg(kept, '--s3-path', `shared/${B}/orders`);
  t.same(backup(good, { name: long, children: [refusedChild] }).children, [], 'and drops a refused one');

  // A one-off Job allowed today is kept (a Job is never changed: it runs once as made).
  const job = made({ clusterName: 'web', s3: own });
  t.same(
    backup({ clusterName: 'web', s3: own, backupPolicy: { maxBackups: 'three' } }, { children: [job] }).children,
    [job],
    'a one-off Job the rules allow is kept',
  );
});
