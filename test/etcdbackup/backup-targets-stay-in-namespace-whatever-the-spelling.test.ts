// Tenant A (team-a) spelling a backup's etcd endpoint, S3 path or S3 endpoint so that a URL parser, an S3 client or a
// resolver reads it as tenant B's (team-b) or as an address of A's choosing: percent-encoded dots, a full-width dot,
// a trailing dot, a tab WHATWG's parser drops, a backslash before `@`, a leading zero in the port, hex IP literals,
// `..` spelled as `%2e%2e`. Each is either refused or read as A's own.
import t from 'tap';
import { etcdTargets, normalUrl, s3TargetProblem, STRICT_TENANCY } from '../../hooks/etcdcommon/tenancy.js';

const A = 'team-a';
const policy = {
  ...STRICT_TENANCY,
  s3Endpoints: [{ namespace: 'team-b', url: 'https://minio-b.example.com' }, { url: 'https://minio.example.com' }],
};
const own = `http://x-client.${A}.svc.cluster.local:2379`;

t.test("an etcd endpoint is A's own cluster's Service or refused, however it is spelled", async (t) => {
  for (const e of [
    `http://x-client.${A}%2esvc:2379`,
    `http://X-CLIENT.${A.toUpperCase()}.SVC:2379`,
    `http://x-client.${A}:2379/%2e%2e/`,
    `http://x-client.${A}:02379`,
    `http://x-client.${A}.svc.cluster.local:2379\t`,
  ]) {
    const r = etcdTargets(A, { etcdEndpoints: [e] }, ['x'], policy);
    t.same(r, { ok: true, endpoints: [own], clusters: ['x'] }, `${JSON.stringify(e)}: dialled as A's own Service`);
  }
  for (const e of [
    'http://x-client.team-b.svc:2379',
    'http://x-client\u3002team-b:2379',
    `http://x-client.${A}.svc.cluster.local.:2379`,
    `http://x-client.${A}:2379\\@team-b`,
    `http://x-client.${A}.svc.svc.cluster.local:2379`,
    'http://[::1]:2379',
    'http://0x7f.1:2379',
    `http://x-client.${A}:2379#`,
    `http://x-client.${A}:2379?x`,
  ]) {
    const r = etcdTargets(A, { etcdEndpoints: [e] }, ['x'], policy);
    t.match(r, { ok: false, reason: 'NotAllowed' }, `${JSON.stringify(e)}: refused`);
  }
});

t.test("an S3 path is under A's prefix as S3 stores the key, or refused", async (t) => {
  for (const p of ['b/team-a', 'b/team-a/', 'b/team-ab/x', 'b/team-a/../team-b/x', 'B/team-a/x', 'b//team-a/x'])
    t.not(s3TargetProblem(A, { path: p, awsSecret: 's' }, policy), undefined, `${p}: refused`);
  // S3 keeps these as they are written (the SDK sends `%` as `%25`; S3 folds no dot segment): keys under team-a/.
  for (const p of ['b/team-a/%2e%2e/team-b/x', 'b/team-a/\uff0e\uff0e/team-b'])
    t.equal(s3TargetProblem(A, { path: p, awsSecret: 's' }, policy), undefined, `${p}: a key under team-a/`);
});

t.test('an S3 endpoint is one the admin lists for A, however it is spelled', async (t) => {
  const problem = (endpoint: string) => s3TargetProblem(A, { path: 'b/team-a/x', awsSecret: 's', endpoint }, policy);
  for (const ep of [
    'https://minio-b.example.com',
    'https://minio.example.com./',
    'https://minio.example.com@evil',
    'https://minio.example.com\\@evil',
    'https://minio.example.com/%2e%2e/x',
  ])
    t.not(problem(ep), undefined, `${ep}: refused`);
  // Spellings of the listed endpoint that every WHATWG parser (the Job's SDK included) reads as that same host.
  for (const ep of ['https://MINIO.example.com:443/', 'https://mini\to.example.com']) {
    t.equal(problem(ep), undefined, `${JSON.stringify(ep)}: the listed endpoint`);
    t.equal(new URL(ep).host, 'minio.example.com');
    t.equal(normalUrl(ep), 'https://minio.example.com');
  }
});
