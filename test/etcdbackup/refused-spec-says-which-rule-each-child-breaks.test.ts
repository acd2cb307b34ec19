// An EtcdBackup whose spec is refused before the sync keeps its observed Job or CronJob only when what it runs is what
// today's hook would make (hooks/etcdbackup/refused.ts childProblem), and its InvalidSpec condition names each child
// not kept and the rule it breaks, in a bounded message. Each case below breaks one rule of a child otherwise as made
// today, and the condition must say that rule: the options the backup command reads, the S3 access as metaops wires
// it, the volumes, every etcd endpoint, the image's repository, the fields of the pod and its container (set by
// metaops, or left to the API server's defaults). What today's hook makes, with the API server's defaults in any of
// their allowed values, is kept.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { A, backup, good, hourly, IMAGE, podSpecOf } from './refused-spec.js';

const typo = (spec: Record<string, unknown>) => ({ ...spec, backupPolicy: { ...hourly, maxBackups: 'three' } });
const OWN = `http://web-client.${A}.svc.cluster.local:2379`;

const message = (res: CompositeSyncResponse): string => (res.status as any).conditions[0].message;

function made(spec: Record<string, unknown>): KubeObject {
  const res = backup(spec);
  if (res.children.length !== 1) throw new Error(`no child made: ${JSON.stringify(res.status)}`);
  return res.children[0] as KubeObject;
}
const today = made(good);
const tls = made({ ...good, clientTLSSecret: 'web-tls' });

/** The backup container's args with `flag`'s value set to `value` (undefined: the flag and its value removed). */
function withArg(child: KubeObject, flag: string, value: string | undefined): KubeObject {
  const copy = structuredClone(child);
  const args: string[] = podSpecOf(copy).containers[0].args;
  const at = args.indexOf(flag);
  if (at < 0) throw new Error(`no ${flag} in ${args.join(' ')}`);
  if (value === undefined) args.splice(at, 2);
  else args[at + 1] = value;
  return copy;
}

function changed(child: KubeObject, change: (pod: Record<string, any>) => void): KubeObject {
  const copy = structuredClone(child);
  change(podSpecOf(copy));
  return copy;
}

const NOT_CLI = 'its container does not run metaops etcd-backup with options the command reads';
const NOT_WIRED = "its S3 credentials are not wired as metaops wires them (the Secret's keys one by one)";
const NOT_VOLUMES = "its volumes are not only the S3 Secret's and the client TLS Secret's";

t.test('a refused child that breaks one rule is not kept, and the condition says which', async (t) => {
  const cases: [string, KubeObject, string][] = [
    // The pod's fields: as metaops sets them, or as the API server defaults those metaops leaves out.
    [
      'a pod security context that runs as root',
      changed(today, (pod) => (pod['securityContext'] = { runAsUser: 0 })),
      'its pod sets "securityContext" to {"runAsUser":0}, which metaops does not',
    ],
    [
      "the node's own DNS",
      changed(today, (pod) => (pod['dnsPolicy'] = 'Default')),
      'its pod sets "dnsPolicy" to "Default", which metaops does not',
    ],
    [
      'no name lookup options (an older child)',
      changed(today, (pod) => delete pod['dnsConfig']),
      'its pod has no dnsConfig, which metaops sets',
    ],
    // The container's fields the same way.
    [
      'resources of its own',
      changed(today, (pod) => (pod['containers'][0].resources = { requests: { cpu: '8' } })),
      'its container sets "resources" to {"requests":{"cpu":"8"}}, which metaops does not',
    ],
    [
      'a termination message read from another file',
      changed(today, (pod) => (pod['containers'][0].terminationMessagePath = '/etc/passwd')),
      'its container sets "terminationMessagePath" to "/etc/passwd", which metaops does not',
    ],
    [
      'no container security context',
      changed(today, (pod) => delete pod['containers'][0].securityContext),
      'its container has no securityContext, which metaops sets',
    ],
    // The image: another repository of the same registry.
    [
      'another repository of the registry',
      changed(today, (pod) => (pod['containers'][0].image = 'registry.example.com/tools:1.4.0')),
      `its container runs image "registry.example.com/tools:1.4.0", not metaops's ${IMAGE}`,
    ],
    ['no image', changed(today, (pod) => delete pod['containers'][0].image), 'its container runs image nothing'],
    // The command, as the CLI reads it.
    ['a container of another name', changed(today, (pod) => (pod['containers'][0].name = 'main')), NOT_CLI],
    ['another subcommand', changed(today, (pod) => (pod['containers'][0].args[0] = 'etcd-restore')), NOT_CLI],
    [
      'an option the command does not read',
      changed(today, (pod) => pod['containers'][0].args.push('--exec', 'sh')),
      NOT_CLI,
    ],
    ['no containers list', changed(today, (pod) => (pod['containers'] = 'backup')), 'its pod runs other containers'],
    ['no S3 path', withArg(today, '--s3-path', undefined), 'its command names no S3 path or no etcd endpoint'],
    ['no etcd endpoint', withArg(today, '--endpoints', undefined), 'its command names no S3 path or no etcd endpoint'],
    // The S3 access: the Secret's keys one by one, mounted where today's child reads them.
    ['the credentials read from another directory', withArg(today, '--aws-dir', '/tmp'), NOT_WIRED],
    ['the credentials directory not given', withArg(today, '--aws-dir', undefined), NOT_WIRED],
    ['the TLS files read from another directory', withArg(tls, '--tls-dir', '/tmp'), NOT_WIRED],
    [
      'an environment variable metaops does not set',
      changed(today, (pod) => pod['containers'][0].env.push({ name: 'NODE_OPTIONS', value: '--require /tmp/x.js' })),
      NOT_WIRED,
    ],
    // The volumes: the S3 Secret's and the client TLS Secret's, each where today's child mounts it.
    [
      'another Secret mounted',
      changed(today, (pod) => {
        pod['volumes'].push({ name: 'token', secret: { secretName: 'admin-token' } });
        pod['containers'][0].volumeMounts.push({ name: 'token', mountPath: '/var/run/token' });
      }),
      NOT_VOLUMES,
    ],
    [
      'the S3 Secret mounted elsewhere',
      changed(today, (pod) => (pod['containers'][0].volumeMounts[0].mountPath = '/root/.aws')),
      NOT_VOLUMES,
    ],
    [
      'a volume that is not a Secret',
      changed(today, (pod) => (pod['volumes'][0] = { name: 'aws', configMap: { name: 'a-aws' } })),
      NOT_VOLUMES,
    ],
    // Every etcd endpoint, not only the first.
    [
      'its own cluster and then an address of its choosing',
      withArg(today, '--endpoints', `${OWN},http://10.96.0.10:2379`),
      'it dials etcd at "http://10.96.0.10:2379", which this namespace may not reach',
    ],
  ];
  for (const [what, child, why] of cases) {
    const res = backup(typo(good), [child]);
    t.same(res.children, [], `${what}: not kept`);
    const said = message(res);
    t.ok(said.startsWith('spec.backupPolicy.maxBackups'), `${what}: the spec's own problem first (${said})`);
    t.ok(
      said.includes(`; ${child.kind} "${child.metadata.name}" is not kept: ${why}`),
      `${what}: the child named and why (${said})`,
    );
  }
});

t.test("a refused child as today's hook makes it, with any of the API server's defaults, is kept", async (t) => {
  const cases: [string, KubeObject][] = [
    ['its own cluster named twice', withArg(today, '--endpoints', `${OWN},${OWN}`)],
    [
      'empty lists of init and ephemeral containers',
      changed(today, (pod) => Object.assign(pod, { initContainers: [], ephemeralContainers: [] })),
    ],
    ['TLS to its own cluster', tls],
    // The pod template of a one-off Job (no CronJob around it).
    ['a one-off Job', made({ clusterName: 'web', s3: good.s3 })],
  ];
  for (const policy of ['Always', 'IfNotPresent', 'Never'])
    cases.push([
      `image pull policy ${policy}`,
      changed(today, (pod) => (pod['containers'][0].imagePullPolicy = policy)),
    ]);
  for (const [what, child] of cases) {
    const spec =
      child.kind === 'Job' ? { clusterName: 'web', s3: good.s3, backupPolicy: { maxBackups: 'three' } } : typo(good);
    const res = backup(spec, [child]);
    t.same(res.children, [child], `${what}: kept as it is`);
    t.notMatch(message(res), /not kept/, `${what}: nothing said of it`);
  }
  // A child with no pod template to read runs nothing the hook can judge: kept, as on any doubt.
  const bare = { ...structuredClone(today), spec: { schedule: (today as any).spec.schedule } } as KubeObject;
  t.same(backup(typo(good), [bare]).children.length, 1, 'a CronJob with no job template: kept');
});

t.test('what the condition says of the children not kept is bounded', async (t) => {
  // A value of the tenant's is shown as JSON of at most 120 characters, clipped with "..." past that.
  const fits = 'x'.repeat(118); // 120 characters as JSON
  const long = 'x'.repeat(119);
  const at = (v: string) =>
    message(backup(typo(good), [changed(today, (pod) => (pod['containers'][0].workingDir = v))]));
  t.ok(
    at(fits).endsWith(`its container sets "workingDir" to "${fits}", which metaops does not`),
    'a value of 120 shown whole',
  );
  t.ok(
    at(long).endsWith(`its container sets "workingDir" to "${long.slice(0, 116)}..., which metaops does not`),
    'a value of 121 clipped to 120 with "..."',
  );
  // The S3 rule's own message, which quotes the path, is clipped the same way.
  const path = `shared/team-b/${'p'.repeat(300)}`;
  const s3 = message(backup(typo(good), [withArg(today, '--s3-path', path)]));
  const reason = s3.slice(s3.indexOf('is not kept: ') + 'is not kept: '.length);
  t.equal(reason.length, 120, `the S3 rule's message clipped to 120 (${reason})`);
  t.ok(reason.startsWith('spec.s3.path "shared/team-b/ppp') && reason.endsWith('...'), 'clipped with "..."');

  // At most two children are named; any more by count.
  const job = (name: string) => {
    const j = structuredClone(made({ clusterName: 'web', s3: good.s3 }));
    j.metadata.name = name;
    return withArg(j, '--s3-path', `shared/team-b/${name}`);
  };
  const three = [withArg(today, '--s3-path', 'shared/team-b/orders'), job('a-backup-backup'), job('old')];
  const said = message(backup(typo(good), three));
  t.equal(said.match(/is not kept/g)?.length, 2, `two children named (${said})`);
  t.ok(said.endsWith('; and 1 more'), 'the third counted');
  const two = message(backup(typo(good), three.slice(0, 2)));
  t.match(
    two,
    /^spec\.backupPolicy\.maxBackups [^;]*; CronJob "a-backup-backup" is not kept: spec\.s3\.path "shared\/team-b\/orders" [^;]*; Job "a-backup-backup" is not kept: spec\.s3\.path "shared\/team-b\/a-backup-backup" [^;]*$/,
    `each named in turn, after the spec's own problem (${two})`,
  );
  t.notMatch(two, /more/, 'no count when every one is named');
});
