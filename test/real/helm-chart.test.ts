// The Helm chart with a real Helm (built from the Go module proxy by e2e/build.sh): `helm lint`, and `helm template`
// compared with `kubectl kustomize manifests/`, so that the chart and the kustomize install cannot drift; then each
// value a user sets is seen in what Helm renders. Installing it on a control plane is the e2e scenario `helm`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { operators } from '../../main/operators.js';
import { root } from '../fixtures/requests.js';

const bin = execFileSync('bash', [join(root, 'e2e', 'build.sh'), 'kube', 'helm'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
  .toString()
  .trim()
  .split('\n')
  .pop()!;
const chart = join(root, 'charts', 'metaops');
const helm = (args: string[]) => execFileSync(join(bin, 'helm'), args, { encoding: 'utf8', env: helmEnv() });
const helmEnv = () => ({
  ...process.env,
  HELM_CACHE_HOME: '/tmp/metaops-helm/cache',
  HELM_CONFIG_HOME: '/tmp/metaops-helm/config',
  HELM_DATA_HOME: '/tmp/metaops-helm/data',
});
const docs = (text: string): any[] =>
  YAML.parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter((o) => o);
const key = (o: any) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const render = (args: string[] = []) => docs(helm(['template', 'metaops', chart, '--namespace', 'metaops', ...args]));
const byKey = (objs: any[]) => new Map(objs.map((o) => [key(o), o]));

t.test('helm lint passes, with the default values and with every knob set', async (t) => {
  t.match(helm(['lint', '--strict', chart]), /1 chart\(s\) linted, 0 chart\(s\) failed/);
  t.match(
    helm([
      'lint',
      '--strict',
      chart,
      '--set',
      'authToken.create=true,replicas=1,operators.s3=false,debugPolicy.imageAllowlist={busybox*}',
    ]),
    /0 chart\(s\) failed/,
  );
});

t.test("more replicas than a namespace's share of the workers holds over are refused, saying why", async (t) => {
  // Each replica counts a namespace's syncs waiting at once alone and allows at least one: 3 replicas let it hold 3
  // of Metacontroller's workers, 5 all 5 (lib/server-replicas.ts MAX_REPLICAS).
  for (const replicas of [3, 5]) {
    let said = '';
    try {
      helm(['template', 'metaops', chart, '--set', `replicas=${replicas}`]);
    } catch (err) {
      said = String((err as { stderr?: unknown }).stderr ?? err);
    }
    t.match(
      said,
      new RegExp(`replicas=${replicas}: at most 2 replicas .*Metacontroller's workers`),
      `${replicas} refused`,
    );
  }
  t.equal(render(['--set', 'replicas=1']).find((o) => o.kind === 'Deployment')?.spec.replicas, 1, 'one renders');
});

t.test('with its defaults the chart renders what kustomize renders (less the Namespace, CRDs kept)', async (t) => {
  const kustomized = docs(
    execFileSync(join(bin, 'kubectl'), ['kustomize', join(root, 'manifests')], { encoding: 'utf8' }),
  );
  const rendered = render();
  const expected = kustomized.filter((o) => o.kind !== 'Namespace');
  t.ok(expected.length >= 20, `${expected.length} objects from kustomize`);
  t.ok(
    kustomized.some((o) => o.kind === 'Namespace' && o.metadata.name === 'metaops'),
    'kustomize makes the namespace; helm install --create-namespace does',
  );
  const crds = rendered.filter((o) => o.kind === 'CustomResourceDefinition');
  t.equal(crds.length, operators.filter((d) => d.type === 'composite').length);
  for (const crd of crds) {
    t.same(
      crd.metadata.annotations,
      { 'helm.sh/resource-policy': 'keep' },
      `${crd.metadata.name}: helm uninstall keeps it`,
    );
    delete crd.metadata.annotations;
  }
  t.same([...byKey(rendered).keys()].sort(), [...byKey(expected).keys()].sort(), 'the same objects');
  const r = byKey(rendered);
  for (const o of expected) t.same(r.get(key(o)), o, `${key(o)} is the same`);
});

t.test('each value shows in what Helm renders', async (t) => {
  const out = render([
    '--namespace',
    'ops',
    '--set',
    [
      'image.repository=registry.example:5000/team/metaops',
      'image.tag=1.2.3',
      'image.pullPolicy=Always',
      'replicas=1',
      'resources.requests.cpu=250m',
      'resources.limits.memory=1Gi',
      'logLevel=debug',
      'authToken.create=true',
      'authToken.secretName=hooks-token',
      'authToken.key=bearer',
      'authToken.value=0123456789abcdef0123456789abcdef',
      'operators.s3=false',
      'operators.podbuggertool=false',
      'debugPolicy.imageAllowlist={busybox*,ghcr.io/org/*}',
      'debugPolicy.profiles={general,baseline}',
      'debugPolicy.excludedNamespaces={kube-system,prod}',
      'debugPolicy.actAsAuthor=true',
      'backupPolicy.ambientCredentials={platform}',
      'backupPolicy.s3Endpoints={http://minio.storage.svc:9000,team-a=https://s3.example}',
      'backupPolicy.etcdEndpoints={https://etcd.example:2379}',
      'etcdPolicy.clusterDomain=k8s.internal',
      'etcdPolicy.clusterDomains={corp.example,b.example}',
      'etcdPolicy.upgradeSoakSeconds=600',
      's3Policy.kmsKeyAllowlist={arn:aws:kms:eu-north-1:123456789012:key/k1,team-a=arn:aws:kms:eu-north-1:123456789012:key/k2}',
      'extraEnv[0].name=METAOPS_HOOK_DEADLINE_MS',
      'metacontroller.namespace=mc',
    ].join(','),
    // An env value is a string: --set would make 9000 a number, which the API server refuses.
    '--set-string',
    'extraEnv[0].value=9000',
  ]);
  const objs = byKey(out);
  const deployment = objs.get('Deployment/ops/metaops');
  t.ok(deployment, 'the Deployment is in the release namespace');
  const c = deployment.spec.template.spec.containers[0];
  t.equal(c.image, 'registry.example:5000/team/metaops:1.2.3');
  t.equal(c.imagePullPolicy, 'Always');
  t.equal(deployment.spec.replicas, 1);
  t.same(
    c.resources,
    { requests: { cpu: '250m', memory: '96Mi' }, limits: { memory: '1Gi' } },
    'merged with the defaults',
  );
  const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
  t.equal(env.LOG_LEVEL, 'debug');
  t.equal(env.METAOPS_IMAGE, c.image, "backup Jobs and restore steps run the chart's image");
  t.same(env.METAOPS_AUTH_TOKEN, { secretKeyRef: { name: 'hooks-token', key: 'bearer' } });
  t.same(
    env.METAOPS_LABEL_KEY,
    { secretKeyRef: { name: 'hooks-token', key: 'label-key', optional: true } },
    "the parent label's key: the optional label-key of the token's Secret",
  );
  t.equal(env.METAOPS_DEBUG_IMAGE_ALLOWLIST, 'busybox*,ghcr.io/org/*');
  t.equal(env.METAOPS_DEBUG_PROFILES, 'general,baseline');
  t.equal(env.METAOPS_DEBUG_EXCLUDED_NAMESPACES, 'kube-system,prod');
  t.equal(env.METAOPS_DEBUG_ACT_AS_AUTHOR, 'true');
  t.equal(env.METAOPS_BACKUP_AMBIENT_CREDENTIALS, 'platform');
  t.equal(env.METAOPS_BACKUP_S3_ENDPOINTS, 'http://minio.storage.svc:9000,team-a=https://s3.example');
  t.equal(env.METAOPS_BACKUP_ETCD_ENDPOINTS, 'https://etcd.example:2379');
  t.equal(env.METAOPS_ETCD_CLUSTER_DOMAIN, 'k8s.internal');
  t.equal(env.METAOPS_ETCD_CLUSTER_DOMAINS, 'corp.example,b.example');
  t.equal(env.METAOPS_ETCD_UPGRADE_SOAK_SECONDS, '600');
  t.equal(
    env.METAOPS_KMS_KEY_ALLOWLIST,
    'arn:aws:kms:eu-north-1:123456789012:key/k1,team-a=arn:aws:kms:eu-north-1:123456789012:key/k2',
  );
  t.equal(env.METAOPS_HOOK_DEADLINE_MS, '9000', 'extraEnv entries are container env entries');
  t.equal(new Set(c.env.map((e: any) => e.name)).size, c.env.length, 'no variable is set twice');
  const secret = objs.get('Secret/ops/hooks-token');
  t.equal(Buffer.from(secret.data.bearer, 'base64').toString(), '0123456789abcdef0123456789abcdef');
  t.notOk(objs.has('CustomResourceDefinition//s3s.systek.no'), 'S3 off: no CRD');
  t.notOk(objs.has('CompositeController//metaops-s3'), 'S3 off: no controller');
  t.notOk(objs.has('CompositeController//metaops-podbuggertool'), 'PodBuggerTool off: no controller');
  const memcached = objs.get('CompositeController//metaops-memcached');
  const hook = memcached.spec.hooks.sync.webhook;
  t.same(hook.service, { name: 'metaops', namespace: 'ops', port: 80 }, 'webhooks call the release namespace');
  t.same(hook.authorization.secretRef, { namespace: 'ops', name: 'hooks-token', key: 'bearer' });
  t.equal(objs.get('ServiceAccount/ops/metaops')?.kind, 'ServiceAccount');
  t.equal(objs.get('ClusterRoleBinding//metaops-hooks').subjects[0].namespace, 'ops');
  const policy = objs.get('NetworkPolicy/ops/metaops-hooks');
  t.same(policy.spec.ingress[0].from[0].namespaceSelector.matchLabels, { 'kubernetes.io/metadata.name': 'mc' });
});

t.test(
  'authToken.create without a value makes a random token; webhook.url points the controllers elsewhere',
  async (t) => {
    const objs = byKey(render(['--set', 'authToken.create=true,webhook.url=http://127.0.0.1:8080/']));
    const token = Buffer.from(objs.get('Secret/metaops/metaops-hook-token').data.token, 'base64').toString();
    t.match(token, /^[A-Za-z0-9]{64}$/, 'a 64-character token, as the server accepts');
    const labelKey = Buffer.from(objs.get('Secret/metaops/metaops-hook-token').data['label-key'], 'base64').toString();
    t.match(labelKey, /^[A-Za-z0-9]{64}$/, 'and a random label-key (METAOPS_LABEL_KEY), at least 32 characters');
    t.not(labelKey, token, 'not the token');
    const other = Buffer.from(
      byKey(render(['--set', 'authToken.create=true'])).get('Secret/metaops/metaops-hook-token').data.token,
      'base64',
    ).toString();
    t.not(other, token, 'a new one each time it is made (an existing Secret is kept by lookup on a cluster)');
    const hook = objs.get('CompositeController//metaops-etcdcluster').spec.hooks.sync.webhook;
    t.equal(hook.url, 'http://127.0.0.1:8080/hooks/etcdcluster/sync');
    t.notOk(hook.service, 'no Service target beside the URL');
    t.notOk(hook.path);
  },
);

t.test('the NetworkPolicy: HTTPS anywhere by default, or only to the CIDRs the values name', async (t) => {
  const policyOf = (args: string[] = []) => byKey(render(args)).get('NetworkPolicy/metaops/metaops-hooks');
  const https = (rule: any) => (rule.ports ?? []).some((p: any) => p.port === 443 || p.port === 6443);
  const open = policyOf().spec.egress.filter(https);
  t.same(
    open,
    [
      {
        ports: [
          { port: 443, protocol: 'TCP' },
          { port: 6443, protocol: 'TCP' },
        ],
      },
    ],
    'by default: anywhere',
  );

  const restricted = policyOf([
    '--set',
    'networkPolicy.egress.https=restricted,networkPolicy.egress.apiServerCidrs={10.0.0.1/32,10.0.0.2/32},networkPolicy.egress.awsCidrs={52.216.0.0/15}',
  ]);
  const rules = restricted.spec.egress.filter(https);
  t.same(rules, [
    {
      to: [{ ipBlock: { cidr: '10.0.0.1/32' } }, { ipBlock: { cidr: '10.0.0.2/32' } }],
      ports: [
        { port: 443, protocol: 'TCP' },
        { port: 6443, protocol: 'TCP' },
      ],
    },
    { to: [{ ipBlock: { cidr: '52.216.0.0/15' } }], ports: [{ port: 443, protocol: 'TCP' }] },
  ]);
  t.ok(
    restricted.spec.egress.every((r: any) => r.to?.length),
    'restricted: no egress rule without a destination is left',
  );
  t.same(restricted.spec.egress.slice(0, 2), policyOf().spec.egress.slice(0, 2), 'DNS and etcd members as before');
  const noAws = policyOf([
    '--set',
    'networkPolicy.egress.https=restricted,networkPolicy.egress.apiServerCidrs={10.0.0.1/32}',
  ]);
  t.equal(noAws.spec.egress.filter(https).length, 1, 'no awsCidrs: the API server only');
  t.throws(
    () => render(['--set', 'networkPolicy.egress.https=restricted']),
    /apiServerCidrs/,
    'restricted without the API server is refused: the hooks could not work',
  );
  t.throws(() => render(['--set', 'networkPolicy.egress.https=everywhere']), /anywhere or restricted/);

  const values = join(mkdtempSync(join(tmpdir(), 'metaops-values-')), 'values.yaml');
  t.teardown(() => rmSync(join(values, '..'), { recursive: true, force: true }));
  writeFileSync(
    values,
    YAML.stringify({
      networkPolicy: {
        egress: {
          extra: [
            {
              to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'storage' } } }],
              ports: [{ port: 9000, protocol: 'TCP' }],
            },
          ],
        },
      },
    }),
  );
  const extra = policyOf(['-f', values]).spec.egress;
  t.same(
    extra.at(-1),
    {
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'storage' } } }],
      ports: [{ port: 9000, protocol: 'TCP' }],
    },
    'extra rules as written (MinIO in-cluster)',
  );
  t.same(extra.filter(https), open, 'beside the default');
});

t.test("the README's kustomize overlay points the manifests at another image", async (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const overlay = /cat > my-metaops\/kustomization\.yaml <<'YAML'\n([\s\S]*?)\nYAML\n/.exec(readme)?.[1];
  t.ok(overlay, 'the README has the overlay');
  const dir = mkdtempSync(join(tmpdir(), 'metaops-overlay-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'my-metaops'));
  symlinkSync(join(root, 'manifests'), join(dir, 'manifests'));
  writeFileSync(join(dir, 'my-metaops', 'kustomization.yaml'), overlay!);
  const objs = docs(execFileSync(join(bin, 'kubectl'), ['kustomize', join(dir, 'my-metaops')], { encoding: 'utf8' }));
  const deployment = objs.find((o) => o.kind === 'Deployment' && o.metadata.name === 'metaops');
  const c = deployment.spec.template.spec.containers[0];
  t.equal(c.image, 'registry.example.com/metaops:0.1.0');
  const image = c.env.find((e: any) => e.name === 'METAOPS_IMAGE');
  t.equal(image?.value, c.image, 'backup Jobs and restore steps run the same image');
  t.equal(c.env.filter((e: any) => e.name === 'METAOPS_IMAGE').length, 1, 'set once');
});
