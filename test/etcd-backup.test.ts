// EtcdBackup without a cluster: the CronJob schedule of an interval (issue 23), the backup command against a
// stand-in gateway that serves /v3beta (etcd 3.3) or /v3alpha (3.1-3.2) as those versions do, and the S3
// region from the credentials' config file (issue 16.5).
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runBackup, s3Region } from '../hooks/etcdbackup/backup.js';
import { schedule } from '../hooks/etcdbackup/sync.js';

/** The minutes of a week at which a schedule of the forms used (`*`, `*\/n`, `n` in minute and hour) fires. */
function firings(cron: string): number[] {
  const [minute, hour, dom, month, dow] = cron.split(' ');
  t.equal(`${dom} ${month} ${dow}`, '* * *', `${cron}: every day`);
  const matches = (field: string, v: number) =>
    field === '*' || (field.startsWith('*/') ? v % Number(field.slice(2)) === 0 : Number(field) === v);
  const out: number[] = [];
  for (let m = 0; m < 7 * 24 * 60; m++)
    if (matches(minute!, m % 60) && matches(hour!, Math.floor(m / 60) % 24)) out.push(m);
  return out;
}

t.test('the schedule keeps the interval, rounded up, at an even pace', async (t) => {
  const cases: Array<[number, number]> = [
    // seconds asked, minutes between backups expected
    [30, 1],
    [60, 1],
    [300, 5],
    [600, 10],
    [7 * 60, 10],
    [45 * 60, 60],
    [50 * 60, 60],
    [3600, 60],
    [90 * 60, 120],
    [2.4 * 3600, 180],
    [5 * 3600, 360],
    [7 * 3600, 480],
    [13 * 3600, 1440],
    [86400, 1440],
  ];
  for (const [seconds, expected] of cases) {
    const cron = schedule(seconds);
    const at = firings(cron);
    const gaps = new Set(at.slice(1).map((m, i) => m - at[i]!));
    t.same([...gaps], [expected], `${seconds}s -> ${cron}: every ${expected} minutes`);
    t.ok(expected * 60 >= seconds, `${seconds}s: never more often than asked`);
  }
});

/** A stand-in etcd gateway of an old version: it serves only `prefix` (status and snapshot). */
async function oldGateway(t: { teardown(fn: () => void): void }, prefix: string, version: string) {
  const posts: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts.push(req.url!);
      if (req.url === `${prefix}/maintenance/status`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ header: { revision: '42' }, version, leader: '1' }));
      }
      if (req.url === `${prefix}/maintenance/snapshot`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(JSON.stringify({ result: { blob: Buffer.from('snap-').toString('base64') } }) + '\n');
        return res.end(JSON.stringify({ result: { blob: Buffer.from(`of-${version}`).toString('base64') } }) + '\n');
      }
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return { posts, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An S3 stand-in that keeps what is put. */
function fakeS3() {
  const objects = new Map<string, Buffer>();
  return {
    objects,
    client: {
      send: async (cmd: { constructor: { name: string }; input: { Bucket: string; Key: string; Body?: Buffer } }) => {
        if (cmd.constructor.name === 'PutObjectCommand')
          objects.set(`${cmd.input.Bucket}/${cmd.input.Key}`, Buffer.from(cmd.input.Body!));
        return {};
      },
    } as any,
  };
}

for (const [prefix, version] of [
  ['/v3beta', '3.3.25'],
  ['/v3alpha', '3.2.13'],
  ['/v3alpha', '3.1.10'],
] as const) {
  t.test(`a backup of etcd ${version} goes through ${prefix}`, async (t) => {
    const gw = await oldGateway(t, prefix, version);
    const s3 = fakeS3();
    const result = await runBackup({
      endpoints: [gw.url],
      path: 'bucket/snap.db',
      periodic: false,
      maxBackups: 0,
      timeoutMs: 2000,
      s3: s3.client,
    });
    t.match(result, { succeeded: true, etcdVersion: version, etcdRevision: 42, key: 'snap.db' });
    t.equal(s3.objects.get('bucket/snap.db')?.toString(), `snap-of-${version}`);
    t.equal(gw.posts[gw.posts.length - 1], `${prefix}/maintenance/snapshot`);
  });
}

t.test('the S3 region: environment first, then the config file of the credentials, then us-east-1', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'metaops-aws-'));
  const config = join(dir, 'config');
  writeFileSync(config, '[default]\nregion = eu-west-3\noutput = json\n\n[profile other]\nregion=ap-south-1\n');
  t.equal(s3Region({ AWS_CONFIG_FILE: config }), 'eu-west-3', "etcd-operator's config file names the region");
  t.equal(s3Region({ AWS_CONFIG_FILE: config, AWS_PROFILE: 'other' }), 'ap-south-1');
  t.equal(s3Region({ AWS_CONFIG_FILE: config, AWS_REGION: 'us-west-2' }), 'us-west-2');
  t.equal(s3Region({ AWS_CONFIG_FILE: join(dir, 'missing') }), 'us-east-1');
  t.equal(s3Region({}), 'us-east-1');
});

t.test('a clusterName that is not a DNS label is refused: no Job dials a host made from it', async (t) => {
  const { backupSync: sync } = await import('./fixtures/hooks.js');
  const parent = (clusterName: string) => ({
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdBackup',
    metadata: { name: 'b', namespace: 'ns', uid: 'u', generation: 1 },
    spec: { clusterName, s3: { path: 'bucket/key' } },
  });
  const bad = sync({ controller: {}, parent: parent('x@127.0.0.1:18460/internal?q=1#') as any }, 'img', new Date(0));
  t.match((bad.status as any).conditions[0], { reason: 'InvalidSpec', message: /clusterName/ });
  t.same(bad.children, [], 'no backup Job');
  const good = sync({ controller: {}, parent: parent('example-etcd-cluster') as any }, 'img', new Date(0));
  t.match((good.children[0] as any).spec.template.spec.containers[0].args, [
    'etcd-backup',
    '--endpoints',
    'http://example-etcd-cluster-client.ns.svc:2379',
  ]);
});

t.test('a failed backup reason goes into status short and printable', async (t) => {
  const { backupSync: sync } = await import('./fixtures/hooks.js');
  const parent = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdBackup',
    metadata: { name: 'b', namespace: 'ns', uid: 'u', generation: 1 },
    spec: { etcdEndpoints: ['http://e:2379'], s3: { path: 'bucket/key' } },
  };
  const reason = `AccessDenied: \u001b[31m${'x'.repeat(4000)}`;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'b-backup-1', namespace: 'ns' },
    status: {
      containerStatuses: [
        {
          name: 'backup',
          state: {
            terminated: { message: JSON.stringify({ succeeded: false, reason }), finishedAt: '2026-01-01T00:00:00Z' },
          },
        },
      ],
    },
  };
  const res = sync(
    { controller: {}, parent: parent as any, related: { 'Pod.v1': { [pod.metadata.name]: pod as any } } },
    'img',
    new Date(0),
  );
  const s = res.status as any;
  t.equal(s.succeeded, false);
  t.ok(s.reason.length <= 300, `${s.reason.length} characters`);
  t.match(s.reason, /^AccessDenied: /);
  t.notOk(s.reason.includes('\u001b'), 'no terminal escape');
});

/** An S3 stand-in for prune: lists the keys of `keys` under a prefix and deletes from it. */
function listingS3(keys: Set<string>): any {
  return {
    send: async (cmd: { constructor: { name: string }; input: { Prefix?: string; Key?: string } }) => {
      if (cmd.constructor.name === 'ListObjectsV2Command')
        return { Contents: [...keys].filter((k) => k.startsWith(cmd.input.Prefix!)).map((Key) => ({ Key })) };
      if (cmd.constructor.name === 'DeleteObjectCommand') keys.delete(cmd.input.Key!);
      return {};
    },
  };
}

t.test(
  'prune keeps the newest backups by date and never the one just written, whatever the revisions (attack 4)',
  async (t) => {
    const { prune } = await import('../hooks/etcdbackup/backup.js');
    const keys = new Set([
      'snap_v9500_2026-01-01T00-00-00Z',
      'snap_v10000_2026-01-01T01-00-00Z',
      'other_v1_2026-01-01T00-00-00Z',
      'snap.db',
    ]);
    const s3 = listingS3(keys);
    // The cluster was restored from an older snapshot: its revisions start lower than the stored backups'.
    for (const [rev, hour] of [
      [9001, 2],
      [9050, 3],
      [9300, 4],
    ] as const) {
      const written = `snap_v${rev}_2026-01-01T0${hour}-00-00Z`;
      keys.add(written);
      await prune(s3, 'b', 'snap', 2, written);
      t.ok(keys.has(written), `${written} survives the run that wrote it`);
    }
    t.same(
      [...keys].filter((k) => k.startsWith('snap_v')).sort(),
      ['snap_v9050_2026-01-01T03-00-00Z', 'snap_v9300_2026-01-01T04-00-00Z'],
      'the two newest by date',
    );
    t.ok(keys.has('other_v1_2026-01-01T00-00-00Z') && keys.has('snap.db'), 'other keys untouched');
    // maxBackups 1: only the one just written stays.
    keys.add('snap_v1_2026-01-01T05-00-00Z');
    t.same(await prune(s3, 'b', 'snap', 1, 'snap_v1_2026-01-01T05-00-00Z'), [
      'snap_v9300_2026-01-01T04-00-00Z',
      'snap_v9050_2026-01-01T03-00-00Z',
    ]);
  },
);

t.test('prune leaves other keys that share the prefix alone (attack 2.7)', async (t) => {
  const { prune } = await import('../hooks/etcdbackup/backup.js');
  const keys = new Set([
    'prod_v2_v50_2026-01-01T00-00-00Z',
    'prod_v1_before-upgrade',
    'prod_v100_2026-01-01T00-00-00Z',
    'prod_v101_2026-01-01T01-00-00Z',
    'prod_v102_2026-01-01T02-00-00Z',
  ]);
  const s3 = listingS3(keys);
  t.same(await prune(s3, 'b', 'prod', 2, 'prod_v102_2026-01-01T02-00-00Z'), ['prod_v100_2026-01-01T00-00-00Z']);
  t.ok(keys.has('prod_v2_v50_2026-01-01T00-00-00Z') && keys.has('prod_v1_before-upgrade'), 'not ours: kept');
});
