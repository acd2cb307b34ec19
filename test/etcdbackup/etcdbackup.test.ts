// EtcdBackup without a cluster: the CronJob schedule of an interval (issue 23), the backup command against a
// stand-in gateway that serves /v3beta (etcd 3.3) or /v3alpha (3.1-3.2) as those versions do, and the S3
// region from the credentials' config file (issue 16.5).
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runBackup, s3Region } from '../../hooks/etcdbackup/backup.js';
import { schedule } from '../../hooks/etcdbackup/sync.js';
import { intactSnapshot } from '../fixtures/fake-s3.js';

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
        // Whole, as etcd of every v3 version streams it: its bytes, then their sha256 (the last 32 bytes).
        const whole = intactSnapshot(`snap-of-${version}`);
        res.write(JSON.stringify({ result: { blob: whole.subarray(0, 5).toString('base64') } }) + '\n');
        res.write(JSON.stringify({ result: { blob: whole.subarray(5, -32).toString('base64') } }) + '\n');
        return res.end(JSON.stringify({ result: { blob: whole.subarray(-32).toString('base64') } }) + '\n');
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
    t.same(
      s3.objects.get('bucket/snap.db'),
      intactSnapshot(`snap-of-${version}`),
      'the whole snapshot, its sha256 too',
    );
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
  const { backupSync: sync } = await import('../fixtures/hooks.js');
  const { backupRequest, etcdCluster } = await import('../fixtures/backup.js');
  const request = (clusterName: string) =>
    backupRequest({
      spec: { clusterName, s3: { path: 'bucket/ns/key', awsSecret: 'aws' } },
      clusters: [etcdCluster('example-etcd-cluster', 'ns')],
    });
  const bad = sync(request('x@127.0.0.1:18460/internal?q=1#'), 'img', new Date(0));
  t.match((bad.status as any).conditions[0], { reason: 'InvalidSpec', message: /clusterName/ });
  t.same(bad.children, [], 'no backup Job');
  const good = sync(request('example-etcd-cluster'), 'img', new Date(0));
  t.match((good.children[0] as any).spec.template.spec.containers[0].args, [
    'etcd-backup',
    '--endpoints',
    'http://example-etcd-cluster-client.ns.svc.cluster.local:2379',
  ]);
});

t.test('a failed backup reason goes into status short and printable, under both spellings', async (t) => {
  const { backupSync: sync } = await import('../fixtures/hooks.js');
  const { backupPod, backupRequest } = await import('../fixtures/backup.js');
  const reason = `AccessDenied: \u001b[31m${'x'.repeat(4000)}`;
  const res = sync(
    backupRequest({
      spec: { etcdEndpoints: ['http://example-client:2379'], s3: { path: 'bucket/ns/key', awsSecret: 'aws' } },
      pods: [backupPod('nightly', 'ns', { succeeded: false, reason }, '2026-01-01T00:00:00Z')],
    }),
    'img',
    new Date(0),
  );
  const s = res.status as any;
  t.equal(s.succeeded, false);
  t.ok(s.reason.length <= 300, `${s.reason.length} characters`);
  t.match(s.reason, /^AccessDenied: /);
  t.notOk(s.reason.includes('\u001b'), 'no terminal escape');
  t.equal(s.Reason, s.reason, "etcd-operator's spelling (BackupStatus.Reason) says the same");
});

t.test('a failed backup reason reaches the status without an AWS account or IAM identity', async (t) => {
  const { backupSync: sync } = await import('../fixtures/hooks.js');
  const { backupPod, backupRequest } = await import('../fixtures/backup.js');
  // With ambient credentials the Job runs as the operator's node role, and AWS names it.
  const reason =
    'AccessDenied: User: arn:aws:sts::123456789012:assumed-role/node-role/i-0abc is not authorized to perform: ' +
    's3:PutObject (account 123456789012, principal AROA3XFRBF535PLBIFPI4:i-0abc, owner 210987654321)';
  const res = sync(
    backupRequest({
      spec: { etcdEndpoints: ['http://example-client:2379'], s3: { path: 'bucket/ns/key', awsSecret: 'aws' } },
      pods: [backupPod('nightly', 'ns', { succeeded: false, reason }, '2026-01-01T00:00:00Z')],
    }),
    'img',
    new Date(0),
  );
  const text = JSON.stringify(res.status);
  t.match((res.status as any).reason, /^AccessDenied: User: arn:aws:sts::<account>:assumed-role\/<name> is not/);
  t.notMatch(text, /123456789012|210987654321|AROA3|node-role/, 'no account, role or unique ID anywhere in the status');
});

t.test('prune keeps the newest backups by date and never the one just written, whatever the revisions', async (t) => {
  const { FakeS3, fakeGateway } = await import('../fixtures/fake-s3.js');
  const s3 = new FakeS3(['b']);
  const state = { revision: 9500, clusterId: '77' };
  const gw = await fakeGateway(t, state);
  const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
  const backup = (h: number, max = 2) =>
    runBackup({
      endpoints: [gw.url],
      path: 'b/ns/snap',
      periodic: true,
      maxBackups: max,
      timeoutMs: 2000,
      s3: s3.client,
      now: () => at(h),
      backup: { uid: 'u', name: 'ns/nightly' },
    });
  await backup(0);
  state.revision = 10000;
  await backup(1);
  s3.put('b', 'ns/other_v1_2026-01-01T00-00-00Z');
  s3.put('b', 'ns/snap.db');
  // The cluster was restored from an older snapshot (new members: a new cluster ID): its revisions start lower
  // than the stored backups'. Each snapshot survives the run that wrote it; the older lineage is kept whole.
  state.clusterId = '78';
  for (const [rev, hour] of [
    [9001, 2],
    [9050, 3],
    [9300, 4],
  ] as const) {
    state.revision = rev;
    const r = await backup(hour);
    t.ok(s3.objects.has(`b/${r.key}`), `${r.key} survives the run that wrote it`);
  }
  t.same(
    s3.keys('b', 'ns/snap_v'),
    [
      'ns/snap_v10000_2026-01-01T01-00-00Z',
      'ns/snap_v9050_2026-01-01T03-00-00Z',
      'ns/snap_v9300_2026-01-01T04-00-00Z',
      'ns/snap_v9500_2026-01-01T00-00-00Z',
    ],
    'the two newest of the new lineage by date, and the whole lineage before the restore',
  );
  t.ok(s3.objects.has('b/ns/other_v1_2026-01-01T00-00-00Z') && s3.objects.has('b/ns/snap.db'), 'other keys untouched');
  // maxBackups 1: only the one just written stays of its lineage.
  state.revision = 1;
  state.clusterId = '78';
  const r = await backup(5, 1);
  t.same(r.pruned, [], 'a revision gone back begins a new lineage: nothing pruned over it');
  state.revision = 2;
  t.same((await backup(6, 1)).pruned, ['ns/snap_v1_2026-01-01T05-00-00Z']);
});

t.test('prune leaves other keys that share the prefix alone', async (t) => {
  const { FakeS3, fakeGateway, fakeKvHash } = await import('../fixtures/fake-s3.js');
  const { META } = await import('../../hooks/etcdbackup/lineage.js');
  const s3 = new FakeS3(['b']);
  const mine = {
    [META.uid]: 'u',
    [META.cluster]: '4d',
    [META.since]: '2026-01-01T00-00-00Z',
    [META.revision]: '100',
    [META.hash]: String(fakeKvHash('h1', 100)),
    [META.compact]: '-1',
  };
  s3.put('b', 'ns/prod_v2_v50_2026-01-01T00-00-00Z', 'x', mine);
  s3.put('b', 'ns/prod_v1_before-upgrade', 'x', mine);
  s3.put('b', 'ns/prod_v100_2026-01-01T00-00-00Z', 'x', mine);
  s3.put('b', 'ns/prod_v101_2026-01-01T01-00-00Z', 'x', {
    ...mine,
    [META.revision]: '101',
    [META.hash]: String(fakeKvHash('h1', 101)),
  });
  const gw = await fakeGateway(t, { revision: 102, clusterId: '77' });
  const r = await runBackup({
    endpoints: [gw.url],
    path: 'b/ns/prod',
    periodic: true,
    maxBackups: 2,
    timeoutMs: 2000,
    s3: s3.client,
    now: () => new Date('2026-01-01T02:00:00Z'),
    backup: { uid: 'u', name: 'ns/prod' },
  });
  t.same(r.pruned, ['ns/prod_v100_2026-01-01T00-00-00Z']);
  t.ok(
    s3.objects.has('b/ns/prod_v2_v50_2026-01-01T00-00-00Z') && s3.objects.has('b/ns/prod_v1_before-upgrade'),
    'not ours: kept',
  );
});

t.test(
  "an awsSecret's files are read as plain values: its keys and region, comments and other profiles left",
  async (t) => {
    const { iniProfile, secretCredentials } = await import('../../hooks/etcdbackup/backup.js');
    const text = [
      '; etcd-operator credentials',
      '[other]',
      'aws_access_key_id = OTHER',
      '[default] # the profile used',
      '  aws_access_key_id = AKIDFILE  ',
      'AWS_Secret_Access_Key=file-secret # a comment',
      '#aws_session_token = commented-out',
      'aws_access_key_id = second-is-ignored',
      'region = two words',
      'x aws_session_token=not-a-key-line',
      'credential_process=A B',
      '[default]x',
      'endpoint_url = http://after-a-broken-header',
      'x[other]',
      'role_arn = still-default',
    ].join('\n');
    t.same(
      { ...iniProfile(text) },
      {
        aws_access_key_id: 'AKIDFILE',
        aws_secret_access_key: 'file-secret',
        endpoint_url: 'http://after-a-broken-header',
        role_arn: 'still-default',
      },
    );
    t.same({ ...iniProfile(text, 'other') }, { aws_access_key_id: 'OTHER' });
    t.same({ ...iniProfile('[profile default]\nregion=eu-north-1\n') }, { region: 'eu-north-1' });
    t.same({ ...iniProfile('[ profile x ]\nregion=r\n', 'x') }, { region: 'r' });
    t.same({ ...iniProfile('region=before-any-header\n') }, {});

    const dir = mkdtempSync(join(tmpdir(), 'metaops-aws-'));
    writeFileSync(join(dir, 'credentials'), text);
    t.same(secretCredentials({}, dir), { accessKeyId: 'AKIDFILE', secretAccessKey: 'file-secret' });
    t.same(
      secretCredentials(
        { AWS_ACCESS_KEY_ID: 'ENV', AWS_SECRET_ACCESS_KEY: 'env-secret', AWS_SESSION_TOKEN: 'tok' },
        dir,
      ),
      { accessKeyId: 'ENV', secretAccessKey: 'env-secret', sessionToken: 'tok' },
      'the keys first',
    );
    t.same(
      secretCredentials({ AWS_ACCESS_KEY_ID: 'ENV' }, dir),
      { accessKeyId: 'AKIDFILE', secretAccessKey: 'file-secret' },
      'half a key: the file',
    );
    t.same(secretCredentials({ AWS_SECRET_ACCESS_KEY: 'only' }, dir), {
      accessKeyId: 'AKIDFILE',
      secretAccessKey: 'file-secret',
    });
    const tokened = mkdtempSync(join(tmpdir(), 'metaops-aws-'));
    writeFileSync(
      join(tokened, 'credentials'),
      '[default]\naws_access_key_id=A\naws_secret_access_key=B\naws_session_token=T\n',
    );
    t.same(secretCredentials({}, tokened), { accessKeyId: 'A', secretAccessKey: 'B', sessionToken: 'T' });
    for (const bad of [
      '[default]\naws_access_key_id=A\n',
      '[default]\naws_secret_access_key=B\n',
      '',
      '[other]\naws_access_key_id=A\naws_secret_access_key=B\n',
    ]) {
      const d = mkdtempSync(join(tmpdir(), 'metaops-aws-'));
      writeFileSync(join(d, 'credentials'), bad);
      t.equal(secretCredentials({}, d), undefined, JSON.stringify(bad));
    }
    t.equal(secretCredentials({}, join(dir, 'missing')), undefined, 'no file');
    writeFileSync(join(dir, 'config'), '[profile default]\nregion = sa-east-1 ; the region\n');
    t.equal(s3Region({}, join(dir, 'config')), 'sa-east-1');
    t.equal(s3Region({ AWS_DEFAULT_REGION: 'ca-central-1' }, join(dir, 'config')), 'ca-central-1');
  },
);
