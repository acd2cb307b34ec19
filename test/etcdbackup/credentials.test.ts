// Whose credentials a backup pod uses (issue 29.6): with an awsSecret, that Secret's and nothing else: not the
// node's (the instance metadata service answers every pod of every namespace), not a `credential_process` or
// `endpoint_url` in its files, not a NODE_OPTIONS or AWS_ENDPOINT_URL key in it. The Job the hook makes is run as a
// kubelet would run it (test/fixtures/backup-kubelet.ts) against a stand-in S3 that records who signed each request,
// a stand-in instance metadata service, and a stand-in etcd gateway.
import { createServer, type IncomingMessage } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import { main } from '../../main/cli.js';
import { backupRequest } from '../fixtures/backup.js';
import { runBackupPod, runContainer } from '../fixtures/backup-kubelet.js';
import { memberPod } from '../../hooks/etcdcluster/members.js';
import { restoreCheckPod } from '../../hooks/etcdcluster/restore.js';
import { fakeGateway } from '../fixtures/fake-s3.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/** An HTTP server that records each request (method, path, Authorization) and answers `answer`. */
async function recorder(
  t: { teardown(fn: () => void): void },
  answer: (req: IncomingMessage) => { status: number; body: string; headers?: Record<string, string> },
) {
  const seen: Array<{ method: string; url: string; auth: string }> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: String(req.headers['authorization'] ?? '') });
      const a = answer(req);
      res.writeHead(a.status, a.headers ?? { 'content-type': 'application/xml' });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const denied = () => ({
  status: 403,
  body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
});

/** The instance metadata service (IMDSv2) of a node, handing out the node role's credentials. */
function imds() {
  return (req: IncomingMessage) => {
    if (req.method === 'PUT') return { status: 200, body: 'token', headers: { 'content-type': 'text/plain' } };
    if (req.url === '/latest/meta-data/iam/security-credentials/')
      return { status: 200, body: 'node-role', headers: { 'content-type': 'text/plain' } };
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        Code: 'Success',
        AccessKeyId: 'AKIDNODEROLE',
        SecretAccessKey: 'node-secret',
        Token: 'node-token',
        Expiration: new Date(Date.now() + 3600_000).toISOString(),
      }),
    };
  };
}

async function setting(t: { teardown(fn: () => void): void }) {
  const s3 = await recorder(t, denied);
  const evil = await recorder(t, denied);
  const metadata = await recorder(t, imds());
  const gw = await fakeGateway(t, { revision: 7, clusterId: '99' });
  const dir = mkdtempSync(join(tmpdir(), 'metaops-cred-'));
  const marker = join(dir, 'ran');
  const hook = join(dir, 'hook.cjs');
  writeFileSync(hook, `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`);
  const job = (s3spec: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    runPure(
      etcdbackup,
      'sync',
      backupRequest({
        namespace: 'team-a',
        spec: { etcdEndpoints: ['http://example-client:2379'], s3: { endpoint: s3.url, ...s3spec } },
        clusters: [
          {
            apiVersion: 'etcd.database.coreos.com/v1beta2',
            kind: 'EtcdCluster',
            metadata: { name: 'example', namespace: 'team-a' },
            // The ID of the stand-in gateway below, as the EtcdCluster's hook records its cluster's.
            status: { clusterID: '99' },
          },
        ],
      }),
      { now: FIXED_NOW, settings: etcdSettings({ env: { METAOPS_BACKUP_S3_ENDPOINTS: s3.url, ...env } }) },
    ).children[0]!;
  // The pod dials the gateway in place of the cluster's client Service (what cluster DNS would resolve).
  const run = (child: ReturnType<typeof job>, secrets: Record<string, Record<string, string>>) => {
    const c = structuredClone(child) as any;
    const container = (c.kind === 'CronJob' ? c.spec.jobTemplate.spec : c.spec).template.spec.containers[0];
    // (The endpoint, and the endpoint whose cluster ID the Job is given: `URL=HEX`.)
    container.args = container.args.map((a: string) => a.replace(/^http:\/\/example-client\.[^=]*/, gw.url));
    return runBackupPod(c, {
      secrets,
      node: {
        AWS_EC2_METADATA_SERVICE_ENDPOINT: metadata.url,
        AWS_EC2_METADATA_V1_DISABLED: 'false',
      },
    });
  };
  const signer = () =>
    s3.seen.map((r) => /Credential=([^/]+)\/\d+\/([^/]+)\//.exec(r.auth)?.slice(1, 3).join(' ') ?? r.auth);
  return { s3, evil, metadata, marker, hook, job, run, signer, gw };
}

t.test("a Secret's keys: those credentials, and no other key of it reaches the pod", async (t) => {
  const s = await setting(t);
  const child = s.job({ path: 'bucket/team-a/once.db', awsSecret: 'aws' });
  const r = await s.run(child, {
    aws: {
      AWS_ACCESS_KEY_ID: 'AKIDTENANT',
      AWS_SECRET_ACCESS_KEY: 'tenant-secret',
      AWS_REGION: 'eu-north-1',
      AWS_ENDPOINT_URL: s.evil.url,
      AWS_ENDPOINT_URL_S3: s.evil.url,
      NODE_OPTIONS: `--require ${s.hook}`,
    },
  });
  // HEAD forbidden (taken as write-only credentials), then the conditional PUT refused: both signed by the Secret.
  t.match(r.result, { succeeded: false, reason: /failed: AccessDenied/, backupUid: 'uid-team-a-nightly' });
  t.same(s.signer(), ['AKIDTENANT eu-north-1', 'AKIDTENANT eu-north-1'], "signed with the Secret's key, in its region");
  t.same(s.evil.seen, [], 'AWS_ENDPOINT_URL of the Secret: never used');
  t.notOk(existsSync(s.marker), 'NODE_OPTIONS of the Secret: never run');
  t.same(s.metadata.seen, [], "the node's credentials: never asked for");
});

t.test("a Secret's files (etcd-operator's): their keys read as values, nothing in them run or followed", async (t) => {
  const s = await setting(t);
  const child = s.job({ path: 'bucket/team-a/once.db', awsSecret: 'aws' });
  const r = await s.run(child, {
    aws: {
      credentials: `[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\ncredential_process = node ${s.hook}\n`,
      config: `[default]\nregion = eu-west-3\nendpoint_url = ${s.evil.url}\ncredential_process = node ${s.hook}\n`,
    },
  });
  t.match(r.result, { succeeded: false, reason: /failed: AccessDenied/ });
  t.same(s.signer(), ['AKIDFILE eu-west-3', 'AKIDFILE eu-west-3']);
  t.same(s.evil.seen, []);
  t.notOk(existsSync(s.marker), 'credential_process: never run');
  t.same(s.metadata.seen, []);
});

t.test('a Secret without credentials fails the backup; the node’s are not used in their place', async (t) => {
  const s = await setting(t);
  const child = s.job({ path: 'bucket/team-a/once.db', awsSecret: 'aws' });
  for (const secret of [
    {} as Record<string, string>,
    { AWS_ACCESS_KEY_ID: 'AKIDHALF' },
    { credentials: `[default]\ncredential_process = node ${s.hook}\n` },
    { credentials: '[other]\naws_access_key_id = A\naws_secret_access_key = B\n' },
  ]) {
    const r = await s.run(child, { aws: secret });
    t.equal(r.code, 1);
    t.match(
      r.result,
      { succeeded: false, reason: /holds no credentials/, backupUid: 'uid-team-a-nightly' },
      JSON.stringify(secret),
    );
  }
  t.same(s.metadata.seen, [], 'the instance metadata service never asked');
  t.same(s.s3.seen, [], 'S3 never called');
  t.notOk(existsSync(s.marker));
});

t.test("control: where the admin allows ambient credentials, the pod does use the node's", async (t) => {
  const s = await setting(t);
  const child = s.job({ path: 'bucket/team-a/once.db' }, { METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'team-a' });
  const r = await s.run(child, {});
  t.match(r.result, { succeeded: false, reason: /failed: AccessDenied/ });
  t.ok(s.metadata.seen.length > 0, 'the stand-in instance metadata service is what a pod without a Secret would use');
  t.match(s.signer(), ['AKIDNODEROLE us-east-1']);
});

t.test("control: the SDK given a tenant's credentials file runs its credential_process", async (t) => {
  const s = await setting(t);
  const dir = mkdtempSync(join(tmpdir(), 'metaops-cred-'));
  writeFileSync(join(dir, 'credentials'), `[default]\ncredential_process = node ${s.hook}\n`);
  const child = s.job({ path: 'bucket/team-a/once.db' }, { METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'team-a' });
  // What a Job with AWS_SHARED_CREDENTIALS_FILE on the Secret's file (the hook before) would have done.
  const c = structuredClone(child) as any;
  c.spec.template.spec.containers[0].env = [{ name: 'AWS_SHARED_CREDENTIALS_FILE', value: join(dir, 'credentials') }];
  await s.run(c, {});
  t.ok(existsSync(s.marker), "the command in the file ran: why the Secret's files are never handed to the SDK");
});

t.test('a silent S3 fails the backup within its timeout, not at the Job deadline', async (t) => {
  const s = await setting(t);
  // Accepts connections, never answers.
  const silent = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => silent.closeAllConnections() ?? silent.close());
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const child = runPure(
    etcdbackup,
    'sync',
    backupRequest({
      namespace: 'team-a',
      spec: {
        etcdEndpoints: ['http://example-client:2379'],
        backupPolicy: { timeoutInSecond: 1 },
        s3: { path: 'bucket/team-a/once.db', awsSecret: 'aws', endpoint: url },
      },
      clusters: [
        {
          apiVersion: 'etcd.database.coreos.com/v1beta2',
          kind: 'EtcdCluster',
          metadata: { name: 'example', namespace: 'team-a' },
          status: { clusterID: '99' },
        },
      ],
    }),
    { now: FIXED_NOW, settings: etcdSettings({ env: { METAOPS_BACKUP_S3_ENDPOINTS: url } }) },
  ).children[0]!;
  const started = Date.now();
  const r = await s.run(child, { aws: { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'B' } });
  const took = Date.now() - started;
  t.match(r.result, { succeeded: false, reason: /could not be checked before writing.*timeout/i });
  t.ok(took < 20_000, `failed after ${took} ms (timeoutInSecond 1, 3 attempts), not at the Job's deadline`);
});

/** Tenant A's EtcdCluster `web`, restored from a snapshot. */
const webCluster = (): any => ({
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'web', namespace: 'team-a', uid: 'uid-web' },
  spec: { size: 1, version: '3.5.17' },
});

t.test("a restore's fetch step: the awsSecret's credentials only, never the node's", async (t) => {
  const s = await setting(t);
  const parent = webCluster();
  const pod = memberPod({
    parent,
    spec: parent.spec,
    name: 'web-0',
    initialCluster: '',
    state: 'new',
    restore: { s3: { path: 'bucket/team-a/snap.db', awsSecret: 'aws', endpoint: s.s3.url }, image: 'metaops:test' },
  })['spec'] as any;
  const fetch = pod.initContainers.find((c: any) => c.name === 'fetch-snapshot');
  t.same(fetch.envFrom ?? [], [], 'no envFrom');
  const node = { AWS_EC2_METADATA_SERVICE_ENDPOINT: s.metadata.url, AWS_EC2_METADATA_V1_DISABLED: 'false' };
  const empty = await runContainer(pod, fetch, { secrets: { aws: { NODE_OPTIONS: `--require ${s.hook}` } }, node });
  t.match(empty.result, { succeeded: false, reason: /holds no credentials/ });
  t.same(s.metadata.seen, [], 'the node’s credentials never asked for');
  t.same(s.s3.seen, []);
  t.notOk(existsSync(s.marker));
  const keyed = await runContainer(pod, fetch, {
    secrets: { aws: { AWS_ACCESS_KEY_ID: 'AKIDRESTORE', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'ap-south-1' } },
    node,
  });
  t.match(keyed.result, { succeeded: false });
  t.same(s.signer(), ['AKIDRESTORE ap-south-1'], "fetched with the Secret's key");
  t.same(s.metadata.seen, []);
});

t.test(
  "a restore's check step: the awsSecret's credentials only, never the node's; a missing Secret named",
  async (t) => {
    const s = await setting(t);
    const parent = webCluster();
    const pod = restoreCheckPod(
      parent,
      parent.spec,
      { s3: { path: 'bucket/team-a/snap.db', awsSecret: 'aws', endpoint: s.s3.url }, image: 'metaops:test' },
      'uid-r',
    )['spec'] as any;
    const check = pod.containers[0];
    t.same(check.envFrom, [], 'no envFrom');
    const node = { AWS_EC2_METADATA_SERVICE_ENDPOINT: s.metadata.url, AWS_EC2_METADATA_V1_DISABLED: 'false' };
    const missing = await runContainer(pod, check, { secrets: {}, node });
    t.match(missing.result, {
      succeeded: false,
      reason: /^the awsSecret aws was not found in this namespace, or it holds no credentials/,
    });
    const empty = await runContainer(pod, check, { secrets: { aws: { NODE_OPTIONS: `--require ${s.hook}` } }, node });
    t.match(empty.result, { succeeded: false, reason: /awsSecret aws .* holds no credentials/ });
    t.same(s.metadata.seen, [], 'the node’s credentials never asked for');
    t.same(s.s3.seen, [], 'nothing asked of S3 without the credentials the restore names');
    t.notOk(existsSync(s.marker), 'no key of the Secret reaches the environment');
    const keyed = await runContainer(pod, check, {
      secrets: { aws: { AWS_ACCESS_KEY_ID: 'AKIDCHECK', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'eu-north-1' } },
      node,
    });
    t.match(keyed.result, { succeeded: false, reason: /AccessDenied/ });
    t.same(s.signer(), ['AKIDCHECK eu-north-1'], "checked with the Secret's key");
    t.same(s.metadata.seen, []);
  },
);

t.test(
  "a restored member's fetch step run again on its kept data asks nothing of S3, so needs no credentials",
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'metaops-refetch-'));
    mkdirSync(join(dir, 'data', 'member'), { recursive: true });
    writeFileSync(join(dir, 'snapshot.db'), 'kept');
    mkdirSync(join(dir, 'aws')); // its Secret since emptied (or deleted: an optional volume left out)
    const args = [
      '--s3-path',
      'bucket/team-a/snap.db',
      '--file',
      join(dir, 'snapshot.db'),
      '--aws-dir',
      join(dir, 'aws'),
    ];
    const log = t.capture(console, 'log');
    const kept = [
      'etcd-restore-fetch',
      ...args,
      '--restore-dir',
      join(dir, 'restore'),
      '--data-dir',
      join(dir, 'data'),
    ];
    t.equal(await main(kept), 0);
    t.match(JSON.parse(log()[0]!.args[0]), { succeeded: true, kept: true });
    t.equal(await main(['etcd-restore-fetch', ...args]), 1, 'a first fetch does need them');
    t.match(JSON.parse(log()[0]!.args[0]), { succeeded: false, reason: /holds no credentials/ });
  },
);
