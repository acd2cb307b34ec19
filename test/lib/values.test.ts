// Names and values the children cannot carry (lib/values.ts and each kind's checks): a parent name or a spec value
// the API server (or the kubelet) would refuse in a child is answered InvalidSpec naming the field, before anything
// running is replaced, and a reverted spec is back where it was at once.
import t from 'tap';
import { nameProblem as memcachedName } from '../../hooks/memcached/sync.js';
import { nameProblem as podsetName } from '../../hooks/podset/sync.js';
import { nameProblem as s3Name } from '../../hooks/s3/sync.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import {
  imageProblem,
  labelKeyProblem,
  parentNameProblem,
  quantityProblem,
  resourcesProblem,
  ruleProblem,
  stringMapProblem,
} from '../../lib/values.js';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { etcdSync, memcachedSync, mysqlSync, podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const now = FIXED_NOW;
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test('name rules: Kubernetes\u2019 own, with their limits', async (t) => {
  t.equal(ruleProblem('dns1035', 'a'.repeat(63)), undefined);
  t.equal(ruleProblem('dns1035', 'a'.repeat(64)), 'must be at most 63 characters (it has 64)');
  for (const bad of ['1a', 'a.b', 'A', 'a-', '-a', 'a_b', ''])
    t.match(ruleProblem('dns1035', bad), /must start with a letter/, `dns1035 ${JSON.stringify(bad)}`);
  t.equal(ruleProblem('dns1123Label', '1a'), undefined, 'a label may start with a digit');
  t.match(ruleProblem('dns1123Label', 'a.b'), /DNS-1123 label/);
  t.equal(ruleProblem('dns1123Subdomain', 'a.b-c.d'), undefined);
  t.equal(ruleProblem('dns1123Subdomain', 'a'.repeat(253)), undefined);
  t.match(ruleProblem('dns1123Subdomain', 'a'.repeat(254)), /at most 253/);
  for (const bad of ['a..b', '.a', 'a.', 'A.b', 'a_b'])
    t.match(ruleProblem('dns1123Subdomain', bad), /DNS-1123 subdomain/, `subdomain ${bad}`);
  t.equal(ruleProblem('labelValue', ''), undefined, 'an empty label value is valid');
  t.equal(ruleProblem('labelValue', 'A_b.c-D'), undefined);
  for (const bad of ['-a', 'a-', 'a b', 'a/b', 'a'.repeat(64)]) t.ok(ruleProblem('labelValue', bad), `label ${bad}`);
  t.equal(
    parentNameProblem('shop', [{ what: 'StatefulSet', rule: 'dns1123Label', suffix: '-mysql', max: 5, why: 'why' }]),
    'metadata.name "shop" cannot name StatefulSet "shop-mysql": it must be at most 5 characters (it has 10) (why)',
  );
  t.equal(
    parentNameProblem('x', [
      { what: 'PersistentVolumeClaim', rule: 'dns1123Subdomain', prefix: 'data-', suffix: '-0' },
    ]),
    undefined,
  );
  t.match(
    parentNameProblem('X', [{ what: 'PersistentVolumeClaim', rule: 'dns1123Subdomain', prefix: 'data-' }]),
    /cannot name PersistentVolumeClaim "data-X"/,
  );
});

t.test('image references: what the API server accepts and the kubelet can pull', async (t) => {
  for (const ok of [
    'busybox',
    'busybox:1.36',
    'library/busybox:latest',
    'docker.io/library/busybox',
    'registry.example.com:5000/team/app:v1.2.3',
    'localhost/app',
    'localhost:5000/app_x__y.z-w:tag',
    '[::1]:5000/app',
    `busybox@sha256:${'a'.repeat(64)}`,
    `busybox:1.36@sha256:${'a'.repeat(64)}`,
    `a:${'w'.repeat(128)}`,
    'Registry.Example.com/app',
  ])
    t.equal(imageProblem(ok), undefined, ok);
  for (const [bad, why] of [
    ['', /empty/],
    ['busybox ', /whitespace/],
    [' busybox', /whitespace/],
    ['busy box', /not an image reference/],
    ['BusyBox', /not an image reference/],
    ['busybox:', /tag/],
    ['busybox:.x', /tag/],
    [`busybox:${'w'.repeat(129)}`, /tag/],
    ['busybox@sha256:abc', /digest/],
    ['busybox@', /digest/],
    ['-busybox', /not an image reference/],
    ['busybox/', /not an image reference/],
    ['a//b', /not an image reference/],
    [`${'a'.repeat(256)}`, /longer than 255/],
    ['reg:abc/app', /not an image reference/],
  ] as const)
    t.match(imageProblem(bad), why, JSON.stringify(bad));
});

t.test('quantities of a volume: the forms the schema allows, greater than zero, within int64', async (t) => {
  for (const ok of ['1Gi', '500Mi', '10G', '1', '0.5Gi', '1.5', '999999999999999999'])
    t.equal(quantityProblem(ok), undefined, ok);
  t.equal(quantityProblem('0'), 'must be greater than zero');
  t.equal(quantityProblem('0Gi'), 'must be greater than zero');
  t.equal(quantityProblem('0.0Mi'), 'must be greater than zero');
  t.equal(quantityProblem('1000000000000000000'), 'is too large');
  t.equal(quantityProblem('0001Gi'), undefined, 'leading zeros are not digits of the value');
  for (const bad of ['1 Gi', '1gi', '-1Gi', '1e3', 'Gi', '']) t.match(quantityProblem(bad), /must be a quantity/, bad);
});

t.test('parent names each kind\u2019s children cannot carry: InvalidSpec naming the child', async (t) => {
  const p = (name: string, spec: Record<string, unknown> = {}) =>
    ({ apiVersion: 'x/v1', kind: 'K', metadata: { name, namespace: 'ns' }, spec }) as any;
  const none = { controller: {}, parent: p('x'), children: {} };
  // Memcached: its Service <name>-memcached (a DNS-1035 label, 63).
  t.equal(memcachedName(p('a'.repeat(53)), none), undefined);
  t.match(memcachedName(p('a'.repeat(54)), none), /cannot name Service "a{54}-memcached": it must be at most 63/);
  t.match(memcachedName(p('web.cache'), none), /cannot name Service "web.cache-memcached"/);
  // PodSet: its pods' labels (63) and names, at the highest ordinal.
  t.equal(podsetName(p('a'.repeat(63), { size: 1000 }), none), undefined);
  t.match(
    podsetName(p('a'.repeat(64), { size: 1 }), none),
    /cannot name label app.kubernetes.io\/instance "a{64}": it must be at most 63/,
  );
  t.equal(podsetName(p('web.a', { size: 2 }), none), undefined, 'dots: valid in labels and pod names');
  t.equal(
    podsetName(p('Web', { size: 2 }), none),
    `metadata.name "Web" cannot name Pod "Web-pod-999": it must contain only lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit (a DNS-1123 subdomain)`,
    'the highest ordinal a PodSet may have',
  );
  // S3: the Secret's labels and its default name.
  t.equal(s3Name(p('a'.repeat(63))), undefined);
  t.match(s3Name(p('a'.repeat(64))), /label app.kubernetes.io\/instance/);
});

t.test(
  'PodSet: an image the API server refuses is InvalidSpec; no pod is replaced; the revert heals at once',
  async (t) => {
    const first = podsetSync(request('podset', { size: 2 }), now);
    const running = first.children.map((c) => asObserved(c, readyPod));
    const observed = objectMap(running);
    // The edit: "busybox " (a trailing space the CRD accepts).
    const bad = podsetSync(request('podset', { size: 2, image: 'busybox ' }, { children: observed }), now);
    t.match(ready(bad), {
      status: 'False',
      reason: 'InvalidSpec',
      message: 'spec.image "busybox " must not have leading or trailing whitespace',
    });
    t.same(
      bad.children.filter((c) => c.kind === 'Pod').map((c) => (c as any).spec.containers[0].image),
      ['busybox', 'busybox'],
      'both running pods answered as they are: none is deleted for a replacement that cannot be created',
    );
    const reverted = podsetSync(request('podset', { size: 2, image: 'busybox' }, { children: observed }), now);
    t.same(reverted.children, first.children, 'reverted: the same pods, nothing to replace or recreate');
    t.match(ready(reverted), { status: 'True' });
    for (const image of ['Busybox', 'busybox::1', 'busybox@sha256:1'])
      t.match(ready(podsetSync(request('podset', { size: 1, image }), now)), {
        reason: 'InvalidSpec',
        message: /spec\.image/,
      });
  },
);

t.test('Memcached: an image the kubelet cannot pull is InvalidSpec, the Deployment kept as it is', async (t) => {
  const first = memcachedSync(request('memcached', { size: 2 }), now);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const bad = memcachedSync(request('memcached', { size: 2, image: 'memcached:1.6 ' }, { children: observed }), now);
  t.match(ready(bad), { reason: 'InvalidSpec', message: /^spec\.image "memcached:1\.6 " must not have/ });
  const deploy = bad.children.find((c) => c.kind === 'Deployment') as KubeObject & { spec: any };
  t.equal(deploy.spec.template.spec.containers[0].image, 'memcached:1.6-alpine');
});

t.test('MySQLCluster: storage values a volume claim cannot carry are InvalidSpec', async (t) => {
  for (const [storage, message] of [
    [{ size: '0Gi' }, 'spec.storage.size "0Gi" must be greater than zero'],
    [
      { size: '1Gi', storageClassName: 'Fast_SSD' },
      /^spec\.storage\.storageClassName "Fast_SSD" must contain only lower-case/,
    ],
    // The schema bounds it too: its words come first.
    [{ size: '1Gi', storageClassName: 'a'.repeat(254) }, /^spec\.storage\.storageClassName .*253/],
  ] as const) {
    const res = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0', storage }), now);
    t.match(ready(res), { reason: 'InvalidSpec', message }, JSON.stringify(storage));
    t.same(res.children, []);
  }
  const fine = mysqlSync(
    request(
      'mysqlcluster',
      {
        size: 1,
        version: '8.0',
        storage: { size: '2Gi', storageClassName: 'fast-ssd.example' },
      },
      {
        // The class exists and provisions (lib/storage-class.ts: a class not seen makes no claim).
        related: {
          'StorageClass.storage.k8s.io/v1': {
            'fast-ssd.example': {
              apiVersion: 'storage.k8s.io/v1',
              kind: 'StorageClass',
              metadata: { name: 'fast-ssd.example' },
              provisioner: 'x.csi',
            },
          },
        },
      },
    ),
    now,
  );
  t.not(ready(fine).reason, 'InvalidSpec');
});

t.test('label keys, label maps and container resources: what the API server accepts', async (t) => {
  for (const ok of ['app', 'app.kubernetes.io/name', 'a_b.c-d', 'example.com/x', 'A'])
    t.equal(labelKeyProblem(ok), undefined, ok);
  for (const [bad, why] of [
    ['', /\[prefix\/\]name/],
    ['-a', /\[prefix\/\]name/],
    ['a/', /\[prefix\/\]name/],
    ['Example.com/x', /prefix that must contain only lower-case/],
    [`${'a'.repeat(64)}`, /\[prefix\/\]name/],
    ['a b', /\[prefix\/\]name/],
  ] as const)
    t.match(labelKeyProblem(bad), why, JSON.stringify(bad));
  t.equal(stringMapProblem('f', { team: 'a', 'x.io/y': 'b-c' }, 'label'), undefined);
  t.equal(stringMapProblem('f', undefined, 'label'), undefined);
  t.match(stringMapProblem('f', { team: 'a b' }, 'label'), /^f\.team "a b" must contain only letters/);
  t.match(stringMapProblem('f', { 'a b': 'x' }, 'any'), /^f key "a b" must be \[prefix\/\]name/);
  t.equal(stringMapProblem('f', { note: 'any text at all, with spaces' }, 'any'), undefined, 'annotation values: any');
  t.equal(resourcesProblem('r', undefined), undefined);
  t.equal(
    resourcesProblem('r', { requests: { cpu: '500m', memory: '256Mi' }, limits: { cpu: 1, memory: '1e9' } }),
    undefined,
  );
  t.match(resourcesProblem('r', { requests: { cpu: 'lots' } }), /^r\.requests\.cpu "lots" is not a quantity/);
  t.match(resourcesProblem('r', { limits: { memory: '-1Gi' } }), /limits\.memory/);
  t.match(resourcesProblem('r', { limits: { memory: -1 } }), /limits\.memory -1/);
  t.match(resourcesProblem('r', { requests: 'x' }), /r\.requests must be a map of quantities/);
});

t.test('EtcdCluster: values its member pods and claims cannot carry are InvalidSpec', async (t) => {
  const parent = (spec: Record<string, unknown>) => etcdParent(spec);
  t.equal(etcdValueProblem(parent({ size: 1 })), undefined);
  const bare = { ...parent({}), spec: { size: 1, version: 'v3.5.0' } };
  t.equal(etcdValueProblem(bare), undefined, 'no repository: the default one');
  for (const [spec, message] of [
    [
      { repository: 'quay.io/coreos/etcd ' },
      /make the image "quay.io\/coreos\/etcd :v3\.5\.0", which is not an image reference/,
    ],
    [{ repository: 'Quay.io/CoreOS/etcd' }, /which is not an image reference/],
    [{ pod: { labels: { tier: 'a b' } } }, /^spec\.pod\.labels\.tier "a b"/],
    [{ pod: { nodeSelector: { 'disk type': 'ssd' } } }, /^spec\.pod\.nodeSelector key "disk type"/],
    [{ pod: { annotations: { 'a b': 'x' } } }, /^spec\.pod\.annotations key/],
    [{ pod: { resources: { requests: { cpu: 'half' } } } }, /^spec\.pod\.resources\.requests\.cpu "half"/],
    [
      { pod: { persistentVolumeClaimSpec: { resources: { requests: { storage: '0Gi' } } } } },
      /storage "0Gi" must be greater than zero/,
    ],
    [
      { pod: { persistentVolumeClaimSpec: { resources: { requests: { storage: 1 } } } } },
      /storage 1 must be a quantity/,
    ],
    [{ TLS: { static: { member: { peerSecret: 'Peer_TLS' } } } }, /^spec\.TLS\.static\.member\.peerSecret "Peer_TLS"/],
    [{ TLS: { static: { operatorSecret: 'op tls' } } }, /^spec\.TLS\.static\.operatorSecret/],
  ] as const)
    t.match(etcdValueProblem(parent(spec as Record<string, unknown>)), message, JSON.stringify(spec));
  const res = await etcdSync(
    { controller: {}, parent: parent({ size: 1, pod: { labels: { tier: 'a b' } } }), children: {} },
    { etcd: { memberList: async () => ({ members: [] }), health: async () => ({ healthy: false }) } as never, now },
  );
  t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /spec\.pod\.labels\.tier/ });
  t.same(res.children, [], 'no member pod the API server would refuse');
});

t.test('the rules\u2019 words and edges, exactly', async (t) => {
  t.equal(ruleProblem('dns1123Label', 'a'), undefined, 'one character');
  t.equal(ruleProblem('dns1035', 'a'), undefined);
  t.equal(ruleProblem('dns1123Subdomain', 'a'), undefined);
  const says = {
    dns1035: "must start with a letter and contain only lower-case letters, digits and '-' (a DNS-1035 label)",
    dns1123Label:
      "must contain only lower-case letters, digits and '-', and start and end with a letter or digit (a DNS-1123 label)",
    dns1123Subdomain:
      "must contain only lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit (a DNS-1123 subdomain)",
    labelValue:
      "must contain only letters, digits, '-', '_' and '.', and start and end with a letter or digit (a label value)",
  } as const;
  for (const [rule, words] of Object.entries(says)) t.equal(ruleProblem(rule as keyof typeof says, '-'), words, rule);
  t.equal(
    parentNameProblem('X', [{ what: 'PersistentVolumeClaim', rule: 'dns1123Subdomain', prefix: 'data-' }]),
    `metadata.name "X" cannot name PersistentVolumeClaim "data-X": it ${says.dns1123Subdomain}`,
    'no reason in brackets when none is given',
  );
  // S3: its Secret's labels, then the Secret's default name.
  const p = (name?: string) => ({ apiVersion: 'x/v1', kind: 'S3', metadata: { name, namespace: 'ns' } }) as any;
  t.equal(s3Name(p()), `metadata.name "" cannot name Secret "-credentials": it ${says.dns1123Subdomain}`);
  t.equal(s3Name(p('A')), `metadata.name "A" cannot name Secret "A-credentials": it ${says.dns1123Subdomain}`);
  // Image references at their edges.
  const hex = 'a'.repeat(64);
  // The repository name is at most 255 characters as the kubelet reads it, registry included: a Docker Hub name of
  // one component is `docker.io/library/<name>`.
  for (const ok of [`b@sha256:${hex}`, `${'a'.repeat(237)}:tag`, `registry.example/${'a'.repeat(238)}:tag`])
    t.equal(imageProblem(ok), undefined, ok.slice(0, 40));
  for (const bad of [
    // The grammar's digest forms that go-digest does not know (the kubelet refuses them: InvalidImageName).
    `b@sha256+b64u.x-y_z:${hex}`,
    `b@SHA256:${hex.toUpperCase()}`,
    `b@sha256+1x:${hex}`,
    `b@!sha256:${hex}`,
    `b@sha256:${hex}!`,
    `b@sha256++x:${hex}`,
    `b@sha256+:${hex}`,
  ])
    t.match(imageProblem(bad), /digest/, bad.slice(0, 30));
  t.match(imageProblem(`${'a'.repeat(256)}:tag`), /longer than 255/);
  t.match(
    imageProblem(`${'a'.repeat(238)}:tag`),
    /longer than 255 characters as the kubelet reads it \(256: docker\.io\/library/,
  );
  t.match(imageProblem(`registry.example/${'a'.repeat(239)}`), /longer than 255/);
  // Quantities: a fraction of several digits; leading zeros are not digits of the value.
  t.equal(quantityProblem('1.25Gi'), undefined);
  t.equal(quantityProblem(`00${'9'.repeat(18)}`), undefined);
  t.equal(quantityProblem(`0${'9'.repeat(19)}`), 'is too large');
});

t.test('a parent without a name (a hand-made request) is refused for the names its children need', async (t) => {
  const nameless = request('memcached', { size: 1 });
  delete (nameless.parent.metadata as { name?: string }).name;
  t.match(ready(memcachedSync(nameless, now)), {
    reason: 'InvalidSpec',
    message: /^metadata\.name "" cannot name Service "-memcached"/,
  });
});
