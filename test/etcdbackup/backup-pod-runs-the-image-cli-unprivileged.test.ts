// The pod of every backup child (a CronJob's, a one-off Job's, with TLS or without) runs the CLI the image builds
// (`node /app/dist/main/cli.js etcd-backup`: the Dockerfile's WORKDIR /app and tsconfig's outDir dist) as the image's
// non-root user 10001, on a read-only root filesystem, no privilege to gain, every capability dropped, the runtime's
// seccomp profile; once (restartPolicy Never: a failed backup is a new pod the Job makes, never the same one run
// again over a half-written upload), its result read from its termination message file, never its log
// (terminationMessagePolicy File: the log holds what etcd and S3 said); names looked up as given (ndots 1). These are
// the fields no spec changes (hooks/etcdbackup/sync.ts backupPodFixed), which a refused spec's kept child is judged
// against too (refused.ts): what is made and what is kept agree.
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backup, good, hourly, podSpecOf } from './refused-spec.js';

const { s3 } = good;

t.test('the CLI the image builds is where the backup pod runs it', async (t) => {
  const docker = readFileSync('Dockerfile', 'utf8');
  t.match(docker, /^WORKDIR \/app$/m, 'the image works in /app');
  t.match(docker, /^COPY --from=build \/app\/dist \.\/dist$/m, 'with the compiled output in dist');
  t.match(docker, /^USER 10001:10001$/m, 'as user 10001');
  t.match(readFileSync('tsconfig.json', 'utf8'), /"outDir": "dist"/, 'main/cli.ts compiled to dist/main/cli.js');
});

t.test('every backup pod runs the CLI once, unprivileged, its result read from its termination file', async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a periodic backup', { clusterName: 'web', backupPolicy: hourly, s3 }, 'CronJob'],
    ['a one-off backup', { clusterName: 'web', s3 }, 'Job'],
    [
      'a periodic backup over TLS',
      { clusterName: 'web', clientTLSSecret: 'web-tls', backupPolicy: hourly, s3 },
      'CronJob',
    ],
  ];
  for (const [what, spec, kind] of cases) {
    const res = backup(spec);
    t.equal(res.children.length, 1, `${what}: one child`);
    const child = res.children[0] as KubeObject;
    t.equal(child.kind, kind, `${what}: a ${kind}`);
    const pod = podSpecOf(child);
    t.equal(pod['restartPolicy'], 'Never', `${what}: never restarted in place`);
    t.same(
      pod['securityContext'],
      { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      `${what}: the image's user, the runtime's seccomp profile`,
    );
    t.same(pod['dnsConfig'], { options: [{ name: 'ndots', value: '1' }] }, `${what}: names looked up as given`);
    t.equal(pod['containers'].length, 1, `${what}: one container`);
    const c = pod['containers'][0];
    t.same(c.command, ['node', '/app/dist/main/cli.js'], `${what}: the image's CLI`);
    t.equal(c.args[0], 'etcd-backup', `${what}: its backup command`);
    t.equal(c.terminationMessagePolicy, 'File', `${what}: the result read from its termination file, not its log`);
    t.same(
      c.securityContext,
      { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
      `${what}: read-only root, no privilege to gain, no capability`,
    );
    // The same fields judge a child kept while the spec is refused: today's child is kept as made.
    const refused = { ...spec, backupPolicy: { ...(spec['backupPolicy'] as object), maxBackups: 'three' } };
    t.same(backup(refused, [child]).children, [child], `${what}: kept as made while the spec is refused`);
  }
});

t.test('the fixed fields are fresh objects at each answer', async (t) => {
  const spec = { clusterName: 'web', backupPolicy: hourly, s3 };
  const a = podSpecOf(backup(spec).children[0]);
  const b = podSpecOf(backup(spec).children[0]);
  t.not(a['securityContext'], b['securityContext'], 'not one object shared between answers');
  t.not(a['containers'][0].command, b['containers'][0].command, 'the command not shared either');
});
