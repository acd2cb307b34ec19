// PodBuggerTool's pure decisions (hooks/podbuggertool/match.ts): image references as the runtime resolves them,
// allowlist entries matched by registry and repository, the container a tool adds (its name, its security
// context per profile), selectors as the API server reads them, where a pod stands for a tool, the failures
// recorded on a pod, and the METAOPS_DEBUG_* checks. Expected values are written out, not computed by the code
// under test.
import { createHash } from 'node:crypto';
import t from 'tap';
import {
  allowlistEntry,
  containerName,
  containerNames,
  DEFAULT_POLICY,
  ephemeralContainer,
  ephemeralImages,
  failuresText,
  FAILURES_ANNOTATION,
  imageAllowed,
  parseImage,
  parseList,
  parser,
  podState,
  policyFromEnv,
  policyProblems,
  policyWarnings,
  recordedFailures,
  refusal,
  runsAsRoot,
  selectorOf,
  selectorProblem,
  selectorText,
} from '../../hooks/podbuggertool/match.js';
import type { KubeObject } from '../../lib/metacontroller.js';

const D = (c: string) => `sha256:${c.repeat(64)}`;
const spec = (s: Record<string, unknown>) => {
  const parsed = parser.parse({ label: 'app=web', image: 'busybox', ...s });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.spec;
};
const pod = (extra: Record<string, unknown> = { containers: [{ name: 'app', image: 'nginx' }] }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns' },
  ...(extra ? { spec: extra } : {}),
});

const bare: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } };

t.test('image references: registry, repository, tag and digest, exactly', async (t) => {
  t.strictSame(
    parseImage('busybox'),
    { registry: 'docker.io', repository: 'library/busybox' },
    'no tag key when there is no tag',
  );
  t.strictSame(parseImage('busybox:1.36'), { registry: 'docker.io', repository: 'library/busybox', tag: '1.36' });
  t.strictSame(parseImage(`busybox@${D('a')}`), {
    registry: 'docker.io',
    repository: 'library/busybox',
    digest: D('a'),
  });
  t.strictSame(
    parseImage('localhost'),
    { registry: 'docker.io', repository: 'library/localhost' },
    'one component is a repository',
  );
  t.strictSame(parseImage('foo.bar'), { registry: 'docker.io', repository: 'library/foo.bar' });
  t.strictSame(
    parseImage('localhost/app:1'),
    { registry: 'localhost', repository: 'app', tag: '1' },
    'localhost is a registry',
  );
  t.strictSame(parseImage('localhost:5000/app'), { registry: 'localhost:5000', repository: 'app' });
  t.strictSame(parseImage('registry-1.docker.io/org/x'), { registry: 'docker.io', repository: 'org/x' });
  t.strictSame(parseImage('INDEX.docker.io/org/x'), { registry: 'docker.io', repository: 'org/x' });
  t.strictSame(parseImage('a.io/x/y'), { registry: 'a.io', repository: 'x/y' }, 'one-letter host labels');
  t.strictSame(parseImage('ab.c/x'), { registry: 'ab.c', repository: 'x' });
  t.strictSame(parseImage('[::1]:5000/x'), { registry: '[::1]:5000', repository: 'x' }, 'an IPv6 host');
  t.strictSame(parseImage('org/x'), { registry: 'docker.io', repository: 'org/x' }, 'a Docker Hub organisation');
  for (const ok of ['org/a.b', 'org/a--b', 'org/a__b', 'org/a.bc', 'org/a_b-c.d'])
    t.ok(parseImage(ok), `${ok}: a valid path`);
  // One grammar with lib/values.ts imageProblem: a digest the kubelet's parser refuses (an algorithm go-digest does
  // not know) is no reference the runtime could pull, so no image an allowlist could let through.
  t.equal(parseImage(`x@sha256+b64u:${'A'.repeat(43)}`), undefined, 'a digest algorithm the kubelet does not know');
  for (const bad of [
    'org/abc-',
    'org/-abc',
    'org/a..b',
    'org/A',
    'org/a.',
    'bad_host.io/x',
    '-host.io/x',
    'host-.io/x',
    'host.io:port/x',
    '[zz]/x',
    `busybox@SHA256:${'a'.repeat(64)}`,
    `busybox@${D('a')}!`,
    `busybox@sha256:${'a'.repeat(31)}`,
    'busybox:-1',
    '@' + D('a'),
    '',
  ]) {
    t.equal(parseImage(bad), undefined, `${JSON.stringify(bad)} is not a reference`);
  }
});

t.test('allowlist entries: path/* by registry and path, repository entries by repository', async (t) => {
  t.ok(imageAllowed('nicolaka/netshoot', ['nicolaka/*']), 'a Docker Hub path');
  t.ok(imageAllowed('docker.io/nicolaka/netshoot:v1', ['nicolaka/*']));
  t.notOk(imageAllowed('ghcr.io/nicolaka/netshoot', ['nicolaka/*']), 'not on another registry');
  t.ok(imageAllowed('ghcr.io/a/b/c', ['ghcr.io/a/b/*']), 'a nested path');
  t.notOk(imageAllowed('ghcr.io/ab/c', ['ghcr.io/a/b/*']));
  t.notOk(imageAllowed('ghcr.io/a/bc/d', ['ghcr.io/a/b/*']), 'on a path-segment boundary');
  t.ok(imageAllowed('ghcr.io/anything/here', ['ghcr.io/*']), 'a whole registry');
  t.notOk(imageAllowed('ghcr.io.evil/x', ['ghcr.io/*']));
  t.ok(imageAllowed('localhost/app', ['localhost/*']));
  t.notOk(imageAllowed('localhost/app', ['docker.io/*']), 'localhost is not Docker Hub');
  t.ok(imageAllowed('registry-1.docker.io/library/busybox', ['busybox']), 'Docker Hub under another name');
  t.ok(imageAllowed('busybox', ['registry-1.docker.io/library/busybox']));
  for (const entry of [
    'bad_host.io/*',
    'ghcr.io/UPPER/*',
    'ghcr.io/ok/BAD/*',
    'ghcr.io/a..b/*',
    'busy*box',
    'busybox:1*',
    `busybox@${D('f')}*`,
    'Not An Image',
  ]) {
    t.equal(allowlistEntry(entry), undefined, `${JSON.stringify(entry)} is no entry`);
  }
  t.ok(allowlistEntry('*')?.({ registry: 'quay.io', repository: 'x' }));
  t.ok(allowlistEntry('busybox:*')?.(parseImage('busybox:1')!));
  t.ok(allowlistEntry('busybox*')?.(parseImage(`busybox@${D('c')}`)!));
  // Exact tags and digests.
  const tagged = allowlistEntry('ghcr.io/o/d:1')!;
  t.ok(tagged(parseImage('ghcr.io/o/d:1')!));
  t.notOk(tagged(parseImage('ghcr.io/o/d')!), 'no tag means latest');
  t.ok(allowlistEntry('ghcr.io/o/d:latest')!(parseImage('ghcr.io/o/d')!));
  t.notOk(
    allowlistEntry('ghcr.io/o/d:1')!(parseImage(`ghcr.io/o/d:1@${D('e')}`)!),
    'a tag and a digest: pulled by the digest, which a tag entry does not name',
  );
  t.notOk(allowlistEntry(`ghcr.io/o/d@${D('e')}`)!(parseImage(`ghcr.io/o/d@${D('f')}`)!));
  t.notOk(allowlistEntry(`ghcr.io/o/d:1@${D('e')}`)!(parseImage(`ghcr.io/o/d:2@${D('e')}`)!), 'both must hold');
});

t.test('the container of a tool: its name, fields and the security context of each profile', async (t) => {
  const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
  t.equal(containerName('web'), 'debug-web');
  t.equal(containerName('a--b'), `debug-a-b--${hash('a--b')}`, 'repeated dashes collapse, and the name is hashed');
  t.equal(containerName('A_'), `debug-a--${hash('A_')}`, 'a trailing dash is dropped');
  t.equal(containerName('x'.repeat(57)), `debug-${'x'.repeat(57)}`, '63 characters: kept');
  t.equal(containerName('x'.repeat(58)), `debug-${'x'.repeat(39)}--${hash('x'.repeat(58))}`, '64: cut and hashed');
  t.equal(containerName('x'.repeat(58)).length, 63, 'cut to 63');
  t.equal(
    containerName(`${'x'.repeat(38)}.yy`),
    `debug-${'x'.repeat(38)}--${hash(`${'x'.repeat(38)}.yy`)}`,
    'no third dash before the hash',
  );

  t.strictSame(ephemeralContainer('t', spec({}), pod()), {
    name: 'debug-t',
    image: 'docker.io/library/busybox',
    imagePullPolicy: 'IfNotPresent',
    stdin: true,
    tty: true,
    terminationMessagePolicy: 'File',
  });
  const full = ephemeralContainer(
    't',
    spec({ command: ['sh'], args: ['-c', 'x'], env: [{ name: 'A', value: '1' }], targetContainerName: 'app' }),
    pod(),
  );
  t.strictSame(
    [full['command'], full['args'], full['env'], full['targetContainerName']],
    [['sh'], ['-c', 'x'], [{ name: 'A', value: '1' }], 'app'],
  );
  t.notOk(
    'targetContainerName' in ephemeralContainer('t', spec({ targetContainerName: 'other' }), pod()),
    'no such container in the pod',
  );
  t.notOk(
    'targetContainerName' in ephemeralContainer('t', spec({ targetContainerName: 'app' }), bare),
    'a pod without a spec',
  );
  const profile = (p: string) => ephemeralContainer('t', spec({ securityProfile: p }), pod())['securityContext'];
  t.strictSame(profile('restricted'), {
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  });
  t.strictSame(profile('general'), { capabilities: { add: ['SYS_PTRACE'] } });
  t.strictSame(profile('netadmin'), { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } });
  t.strictSame(profile('sysadmin'), { privileged: true });
  t.equal(profile('baseline'), undefined, 'the default profile adds nothing');
  t.strictSame(ephemeralContainer('t', spec({ runAsUser: 1000 }), pod())['securityContext'], { runAsUser: 1000 });
  t.strictSame(
    ephemeralContainer('t', spec({ securityProfile: 'restricted', runAsUser: 65534 }), pod())['securityContext'],
    {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
      runAsUser: 65534,
    },
  );
  const first = ephemeralContainer('t', spec({ securityProfile: 'general' }), pod());
  (first['securityContext'] as any).capabilities.add.push('SYS_ADMIN');
  t.strictSame(
    ephemeralContainer('t', spec({ securityProfile: 'general' }), pod())['securityContext'],
    { capabilities: { add: ['SYS_PTRACE'] } },
    'each container gets its own copy of the profile',
  );
  t.match(parser.parse({ label: 'a=b', image: 'busybox', runAsUser: 0 }), { ok: false }, 'runAsUser is never root');
});

t.test('the ephemeral containers a pod has, tolerant of anything malformed', async (t) => {
  const images = ephemeralImages(
    pod({ ephemeralContainers: [{ name: 'a', image: 'x' }, null, { name: 7 }, { image: 'y' }, { name: 'b' }, 'junk'] }),
  );
  t.strictSame(
    [...images],
    [
      ['a', 'x'],
      ['b', ''],
    ],
  );
  t.equal(ephemeralImages(bare).size, 0);
  t.equal(ephemeralImages(pod({ ephemeralContainers: 'x' })).size, 0);
});

t.test('a tool without a selector or label is refused with a message that says so', async (t) => {
  const none = parser.parse({ image: 'busybox' });
  t.match(none, { ok: false, message: /spec.selector or spec.label is required/ });
  t.match(parser.parse({ image: 'busybox', selector: {} }), { ok: false, message: /selects nothing in particular/ });
});

t.test('refusals name the allowlist and the profiles', async (t) => {
  const policy = { ...DEFAULT_POLICY, allowlist: ['busybox', 'ghcr.io/o/*'] };
  t.match(refusal(spec({ image: 'alpine' }), 'ns', policy), {
    reason: 'ImageNotAllowed',
    message: "image alpine is not in the server's debug image allowlist (busybox, ghcr.io/o/*); nothing is injected",
  });
  t.match(refusal(spec({ securityProfile: 'sysadmin' }), 'ns', policy), {
    reason: 'ProfileNotAllowed',
    message: 'security profile sysadmin is not enabled on the server (baseline, restricted); nothing is injected',
  });
  t.match(refusal(spec({}), 'kube-system', policy), { reason: 'NamespaceExcluded' });
  t.equal(refusal(spec({}), 'ns', policy), undefined);
});

t.test('METAOPS_DEBUG_* problems: empty, an entry that can never match, an unknown profile', async (t) => {
  t.same(policyProblems({}), []);
  t.same(
    policyProblems({
      METAOPS_DEBUG_IMAGE_ALLOWLIST: 'busybox, ghcr.io/o/*',
      METAOPS_DEBUG_PROFILES: 'general,sysadmin',
      METAOPS_DEBUG_EXCLUDED_NAMESPACES: 'a',
    }),
    [],
  );
  for (const name of ['METAOPS_DEBUG_IMAGE_ALLOWLIST', 'METAOPS_DEBUG_EXCLUDED_NAMESPACES', 'METAOPS_DEBUG_PROFILES']) {
    t.same(policyProblems({ [name]: ' , ' }), [`${name} is empty: list values, or unset it for the default`]);
  }
  t.same(policyProblems({ METAOPS_DEBUG_IMAGE_ALLOWLIST: 'busybox,busy*box' }), [
    'METAOPS_DEBUG_IMAGE_ALLOWLIST entry "busy*box" is not an image reference, repository* or path/*: it would match nothing',
  ]);
  t.same(policyProblems({ METAOPS_DEBUG_PROFILES: 'general,root' }), [
    'METAOPS_DEBUG_PROFILES: no profile "root" (general, baseline, restricted, netadmin, sysadmin)',
  ]);
  t.same(policyProblems({ METAOPS_DEBUG_AUTHOR_CHECK: 'off' }), []);
  t.same(policyProblems({ METAOPS_DEBUG_AUTHOR_CHECK: 'subjectaccessreview' }), []);
  t.same(policyProblems({ METAOPS_DEBUG_AUTHOR_CHECK: 'no' }), [
    'METAOPS_DEBUG_AUTHOR_CHECK: "no" is not subjectaccessreview or off',
  ]);
  t.same(policyProblems({ METAOPS_DEBUG_AUTHOR_CHECK: '' }), [
    'METAOPS_DEBUG_AUTHOR_CHECK: "" is not subjectaccessreview or off',
  ]);
});

t.test(
  'the server policy: defaults are narrow (no capability, busybox only), the environment widens them',
  async (t) => {
    const defaults = policyFromEnv({});
    t.same(defaults, {
      allowlist: ['busybox'],
      excludedNamespaces: ['kube-system'],
      profiles: ['baseline', 'restricted'],
      authorCheck: 'subjectaccessreview',
      actAsAuthor: false,
    });
    t.notOk(imageAllowed('nicolaka/netshoot', defaults.allowlist), 'not any image by default');
    t.ok(imageAllowed('busybox:1.36', defaults.allowlist));
    t.match(
      refusal(spec({ securityProfile: 'general' }), 'ns', defaults),
      { reason: 'ProfileNotAllowed' },
      'no SYS_PTRACE by default',
    );
    const wide = policyFromEnv({
      METAOPS_DEBUG_IMAGE_ALLOWLIST: '*',
      METAOPS_DEBUG_EXCLUDED_NAMESPACES: 'kube-system, secure',
      METAOPS_DEBUG_PROFILES: 'general,sysadmin,bogus',
      METAOPS_DEBUG_AUTHOR_CHECK: 'off',
    });
    t.same(wide, {
      allowlist: ['*'],
      excludedNamespaces: ['kube-system', 'secure'],
      profiles: ['general', 'sysadmin'],
      authorCheck: 'off',
      actAsAuthor: false,
    });
    t.equal(policyFromEnv({ METAOPS_DEBUG_AUTHOR_CHECK: 'subjectaccessreview' }).authorCheck, 'subjectaccessreview');
    t.same(parseList(' busybox*, ghcr.io/org/debug:1 ,'), ['busybox*', 'ghcr.io/org/debug:1']);
    t.equal(parseList(''), undefined);
    t.equal(parseList(undefined), undefined);
  },
);

t.test('selectors: the key=value shorthand, and only keys and values a label can have', async (t) => {
  t.same(selectorOf({ label: 'app=web' } as any), { matchLabels: { app: 'web' } });
  t.same(selectorOf({ label: 'debug' } as any), { matchExpressions: [{ key: 'debug', operator: 'Exists' }] });
  t.same(selectorOf({ label: 'app=web', selector: { matchLabels: { tier: 'front' } } } as any), {
    matchLabels: { tier: 'front', app: 'web' },
  });
  t.same(selectorOf({ label: 'x', selector: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] } } as any), {
    matchExpressions: [
      { key: 'a', operator: 'DoesNotExist' },
      { key: 'x', operator: 'Exists' },
    ],
  });
  t.equal(
    selectorText({
      matchLabels: { app: 'web', 'example.com/tier': 'front' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['a', 'b'] },
        { key: 'zone', operator: 'NotIn', values: ['z'] },
        { key: 'debug', operator: 'Exists' },
        { key: 'skip', operator: 'DoesNotExist' },
      ],
    }),
    'app=web,example.com/tier=front,env in (a,b),zone notin (z),debug,!skip',
  );
  t.equal(selectorText({}), '');
  // What the API server would refuse, or read as another selector (its text has no escaping), is refused.
  for (const [selector, message] of [
    [{ matchLabels: { 'a,b': 'c' } }, '"a,b" is not a valid label key'],
    [{ matchLabels: { a: 'b,c=d' } }, '"b,c=d" is not a valid label value'],
    [{ matchLabels: { a: 'x'.repeat(64) } }, `"${'x'.repeat(64)}" is not a valid label value`],
    [{ matchLabels: { ['x'.repeat(64)]: 'a' } }, `"${'x'.repeat(64)}" is not a valid label key`],
    [{ matchLabels: { 'Bad_Prefix/a': 'b' } }, '"Bad_Prefix/a" is not a valid label key'],
    [{ matchLabels: { [`${'a'.repeat(254)}/b`]: 'c' } }, `"${'a'.repeat(254)}/b" is not a valid label key`],
    [{ matchLabels: { '/a': 'b' } }, '"/a" is not a valid label key'],
    [{ matchLabels: { '-a': 'b' } }, '"-a" is not a valid label key'],
    [{ matchExpressions: [{ key: 'a)', operator: 'Exists' }] }, '"a)" is not a valid label key'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, 'In on a needs values'],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }, 'NotIn on a needs values'],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'Exists on a takes no values'],
    [
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
      'DoesNotExist on a takes no values',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'x) ,b in (y'] }] },
      '"x) ,b in (y" is not a valid label value',
    ],
  ] as const) {
    t.equal(selectorProblem(selector as any), `spec.selector: ${message}`, JSON.stringify(selector));
    // The CRD's bound on a label value (63) is the schema's, checked before the selector's own rules.
    const bounded = JSON.stringify(selector) === JSON.stringify({ matchLabels: { a: 'x'.repeat(64) } });
    t.match(parser.parse({ image: 'busybox', selector }), {
      ok: false,
      message: bounded
        ? /^spec\.selector\.matchLabels\.a is .*at most 63|length less or equal to 63/
        : `spec.selector: ${message}`,
    });
  }
  for (const ok of [
    { matchLabels: { app: 'web', 'example.com/a.b_c-d': '', 'k8s.io/x': 'A.b-C_1' } },
    { matchLabels: { [`${'a'.repeat(253)}/b`]: 'x'.repeat(63) } },
    {
      matchExpressions: [
        { key: 'a', operator: 'In', values: ['x', ''] },
        { key: 'b', operator: 'Exists' },
      ],
    },
  ]) {
    t.equal(selectorProblem(ok as any), undefined, JSON.stringify(ok));
  }
  t.match(parser.parse({ image: 'busybox', label: 'app=we b' }), { ok: false });
});

t.test('where a pod stands for a tool', async (t) => {
  const tool = 'a';
  const s = spec({ image: 'busybox:2' });
  const base = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } };
  const podWith = (
    podSpec: Record<string, unknown>,
    status?: Record<string, unknown>,
    annotations?: Record<string, string>,
  ): KubeObject =>
    ({
      ...base,
      metadata: { ...base.metadata, ...(annotations ? { annotations } : {}) },
      spec: { containers: [{ name: 'app' }], ...podSpec },
      ...(status ? { status } : {}),
    }) as KubeObject;
  const carrying = (image: string) => ({ ephemeralContainers: [{ name: 'debug-a', image }] });
  t.same(podState(podWith(carrying('busybox:2')), tool, s), { state: 'injected' });
  t.same(podState(podWith(carrying('busybox:1')), tool, s), {
    state: 'outdated',
    image: 'busybox:1',
    differs: ['image'],
  });
  t.same(
    podState(podWith({ ephemeralContainers: [{ name: 'debug-b', image: 'busybox:2' }] }), tool, s),
    { state: 'pending' },
    "another tool's",
  );
  t.same(podState(podWith({}), tool, s), { state: 'pending' });
  // A container or init container already named debug-<tool>: the API server refuses the PATCH for good.
  const taken = { state: 'skipped', reason: 'ContainerNameTaken' };
  t.same(podState(podWith({ containers: [{ name: 'app' }, { name: 'debug-a' }] }), tool, s), taken);
  t.same(podState(podWith({ initContainers: [{ name: 'debug-a' }] }), tool, s), taken, 'an init container');
  t.same(podState(podWith({ initContainers: [{ name: 'debug-b' }] }), tool, s), { state: 'pending' });
  t.same(podState(podWith({ initContainers: 'x' }), tool, s), { state: 'pending' }, 'initContainers not a list');
  t.same(podState(podWith({}, { phase: 'Succeeded' }), tool, s), { state: 'skipped', reason: 'PodCompleted' });
  t.same(podState(podWith({}, { phase: 'Failed' }), tool, s), { state: 'skipped', reason: 'PodCompleted' });
  t.same(podState(podWith({}, { phase: 'Pending' }), tool, s), { state: 'pending' });
  t.same(
    podState(podWith(carrying('busybox:2'), { phase: 'Succeeded' }), tool, s),
    { state: 'skipped', reason: 'PodCompleted' },
    'completed, carrying it: the phase first (the container stopped with the pod; nothing failed, nothing runs)',
  );
  const target = spec({ image: 'busybox:2', targetContainerName: 'db' });
  t.same(podState(podWith({}), tool, target), { state: 'skipped', reason: 'TargetContainerMissing' });
  t.same(podState(podWith({ containers: [{ name: 'app' }, { name: 'db' }] }), tool, target), { state: 'pending' });
  const restricted = spec({ image: 'busybox:2', securityProfile: 'restricted' });
  t.same(podState(podWith({}), tool, restricted), { state: 'skipped', reason: 'RunsAsRoot' });
  t.same(
    podState(podWith({ securityContext: { runAsUser: 1000 } }), tool, restricted),
    { state: 'pending' },
    "the pod's user",
  );
  t.same(podState(podWith({ securityContext: { runAsUser: 0 } }), tool, restricted), {
    state: 'skipped',
    reason: 'RunsAsRoot',
  });
  t.same(podState(podWith({}), tool, spec({ image: 'busybox:2', securityProfile: 'restricted', runAsUser: 7 })), {
    state: 'pending',
  });
  // The kubelet refused to start it (runAsNonRoot and a root image): failed, never injected.
  const refused = (message: string, name = 'debug-a', reason = 'CreateContainerConfigError') => ({
    phase: 'Running',
    ephemeralContainerStatuses: [{ name: 'other' }, null, { name, state: { waiting: { reason, message } } }],
  });
  t.same(
    podState(podWith(carrying('busybox:2'), refused('container has runAsNonRoot and image will run as root')), tool, s),
    {
      state: 'failed',
      reason: 'RunsAsRoot',
    },
  );
  t.same(
    podState(
      podWith(carrying('busybox:2'), refused('container has runAsNonRoot and image has non-numeric user')),
      tool,
      s,
    ),
    {
      state: 'failed',
      reason: 'RunsAsRoot',
    },
  );
  t.same(
    podState(podWith(carrying('busybox:2'), refused('secret "x" not found')), tool, s),
    { state: 'injected' },
    'another config error',
  );
  t.same(
    podState(podWith(carrying('busybox:2'), refused('runAsNonRoot', 'debug-b')), tool, s),
    { state: 'injected' },
    "another container's",
  );
  // Another reason is not RunsAsRoot. (An image the kubelet cannot pull is a failure of its own since the
  // container does not run: ImagePullFailed, below; a container being created is injected.)
  t.same(
    podState(podWith(carrying('busybox:2'), refused('runAsNonRoot', 'debug-a', 'ErrImagePull')), tool, s),
    { state: 'failed', reason: 'ImagePullFailed' },
    'another reason',
  );
  t.same(
    podState(podWith(carrying('busybox:2'), refused('runAsNonRoot', 'debug-a', 'ContainerCreating')), tool, s),
    { state: 'injected' },
    'another reason: being created',
  );
  t.same(podState(podWith(carrying('busybox:2'), { ephemeralContainerStatuses: 'x' }), tool, s), { state: 'injected' });
  // A failure the injector recorded: failed (and retried), until the container is there.
  const failed = { [FAILURES_ANNOTATION]: '{"debug-a":"Forbidden","debug-b":"Invalid"}' };
  t.same(podState(podWith({}, undefined, failed), tool, s), { state: 'failed', reason: 'Forbidden' });
  t.same(podState(podWith(carrying('busybox:2'), undefined, failed), tool, s), { state: 'injected' });
  t.same(podState(podWith({}, { phase: 'Succeeded' }, failed), tool, s), { state: 'skipped', reason: 'PodCompleted' });
});

t.test(
  'runsAsRoot: the restricted profile or a non-root pod, and only without a non-root user the hook can see',
  async (t) => {
    const p = (sc?: unknown): KubeObject =>
      ({ ...bare, spec: { containers: [], ...(sc !== undefined ? { securityContext: sc } : {}) } }) as KubeObject;
    const r = spec({ securityProfile: 'restricted' });
    t.ok(runsAsRoot(p(), r));
    t.ok(runsAsRoot(bare, r), 'a pod without a spec');
    t.ok(
      runsAsRoot(p({ runAsNonRoot: true }), r),
      "the pod's own images are non-root; the debug image is not known to be",
    );
    t.ok(runsAsRoot(p({ runAsUser: '1000' }), r), 'not a number');
    t.ok(runsAsRoot(p(null), r));
    t.notOk(runsAsRoot(p({ runAsUser: 1 }), r));
    t.notOk(runsAsRoot(p(), spec({ securityProfile: 'restricted', runAsUser: 1 })));
    t.notOk(
      runsAsRoot(p({ runAsUser: 0 }), spec({ securityProfile: 'restricted', runAsUser: 5 })),
      "the tool's user wins",
    );
    for (const profile of ['baseline', 'general'])
      t.notOk(runsAsRoot(p(), spec({ securityProfile: profile })), profile);
    // The pod's own runAsNonRoot, which an ephemeral container inherits, whatever the profile.
    for (const profile of ['baseline', 'general', 'netadmin', 'sysadmin']) {
      const s = spec({ securityProfile: profile });
      t.ok(runsAsRoot(p({ runAsNonRoot: true }), s), `${profile} in a non-root pod`);
      t.notOk(runsAsRoot(p({ runAsNonRoot: false }), s), `${profile} in a pod that says runAsNonRoot: false`);
      t.notOk(runsAsRoot(p({ runAsNonRoot: true, runAsUser: 7 }), s), `${profile}: the pod names its user`);
      t.notOk(runsAsRoot(p({ runAsNonRoot: true }), spec({ securityProfile: profile, runAsUser: 7 })), 'the tool does');
      t.ok(runsAsRoot(p({ runAsNonRoot: true, runAsUser: 0 }), s), "the pod's user 0 is root");
    }
    t.ok(runsAsRoot(p({ runAsNonRoot: 'true' }), r), 'restricted whatever the pod says');
    t.notOk(runsAsRoot(p({ runAsNonRoot: 'true' }), spec({})), 'not a boolean: not what the kubelet reads as true');
    // A target container's own securityContext is not inherited: it neither requires nor names a user.
    const target = {
      ...bare,
      spec: { containers: [{ name: 'app', securityContext: { runAsNonRoot: true, runAsUser: 7 } }] },
    } as KubeObject;
    t.notOk(runsAsRoot(target, spec({ targetContainerName: 'app' })), "the target's runAsNonRoot is its own");
    t.ok(
      runsAsRoot(target, spec({ securityProfile: 'restricted', targetContainerName: 'app' })),
      "the target's user is its own",
    );
    // Windows: the user is windowsOptions.runAsUserName, and ContainerAdministrator is the kubelet's root.
    const win = (sc: unknown): KubeObject =>
      ({ ...bare, spec: { os: { name: 'windows' }, containers: [], securityContext: sc } }) as KubeObject;
    t.ok(runsAsRoot(win({ runAsNonRoot: true }), spec({})));
    t.ok(
      runsAsRoot(win({ runAsNonRoot: true, windowsOptions: { runAsUserName: 'ContainerAdministrator' } }), spec({})),
    );
    t.notOk(runsAsRoot(win({ runAsNonRoot: true, windowsOptions: { runAsUserName: 'ContainerUser' } }), spec({})));
    t.notOk(runsAsRoot(win({}), spec({})));
  },
);

t.test('the failures recorded on a pod: read tolerantly, written sorted, removed when none', async (t) => {
  const on = (text: unknown): KubeObject => ({
    ...bare,
    metadata: { ...bare.metadata, annotations: { [FAILURES_ANNOTATION]: text as string } },
  });
  t.same(
    [...recordedFailures(on('{"b":"Forbidden","a":"Invalid"}'))],
    [
      ['b', 'Forbidden'],
      ['a', 'Invalid'],
    ],
  );
  for (const junk of [
    '',
    'x',
    '[]',
    'null',
    '"a"',
    '7',
    '{"a":7}',
    '{"a":"no spaces allowed"}',
    '{"a":""}',
    `{"a":"${'X'.repeat(65)}"}`,
  ])
    t.equal(recordedFailures(on(junk)).size, 0, junk);
  t.same([...recordedFailures(on('{"a":"Forbidden","b":7}'))], [['a', 'Forbidden']]);
  t.equal(recordedFailures(on(`{"a":"Forbidden","pad":"${'x'.repeat(17000)}"}`)).size, 0, 'too long to be a record');
  t.equal(recordedFailures(bare).size, 0);
  t.same(
    [...recordedFailures(on('{"__proto__":"Forbidden"}'))],
    [['__proto__', 'Forbidden']],
    'a key that plain objects know',
  );
  t.equal(failuresText(new Map()), null);
  t.equal(
    failuresText(
      new Map([
        ['b', 'X'],
        ['a', 'Y'],
      ]),
    ),
    '{"a":"Y","b":"X"}',
  );
  t.same(
    containerNames({
      ...bare,
      spec: { containers: [{ name: 'a' }, null, { name: 5 }, 'x', { name: 'b' }] },
    } as KubeObject),
    ['a', 'b'],
  );
  t.same(containerNames({ ...bare, spec: { containers: 'x' } } as KubeObject), []);
});

t.test('container names are valid DNS-1123 labels, whatever the tool is called', async (t) => {
  t.equal(containerName('busybox'), 'debug-busybox');
  t.match(containerName('My.Tool_v2'), /^debug-my-tool-v2--[0-9a-f]{16}$/, 'a name that is not a label keeps a hash');
  t.not(containerName('x.y'), containerName('x-y'), 'x.y and x-y never share a container (second attack review F2)');
  t.equal(containerName('x-y'), 'debug-x-y');
  const long = containerName('x'.repeat(80));
  t.ok(long.length <= 63);
  t.match(long, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  t.not(containerName('x'.repeat(80)), containerName('x'.repeat(81)), 'long names stay distinct');
});

t.test('image references are parsed as the runtime resolves them', async (t) => {
  t.same(parseImage('busybox'), { registry: 'docker.io', repository: 'library/busybox' });
  t.same(parseImage('busybox:1.36'), { registry: 'docker.io', repository: 'library/busybox', tag: '1.36' });
  t.same(parseImage('index.docker.io/library/busybox:1.36'), {
    registry: 'docker.io',
    repository: 'library/busybox',
    tag: '1.36',
  });
  t.same(parseImage('busybox.evil.example/pwn'), { registry: 'busybox.evil.example', repository: 'pwn' });
  t.same(parseImage('localhost:5000/a/b:c'), { registry: 'localhost:5000', repository: 'a/b', tag: 'c' });
  t.same(parseImage(`ghcr.io/o/d@sha256:${'a'.repeat(64)}`), {
    registry: 'ghcr.io',
    repository: 'o/d',
    digest: `sha256:${'a'.repeat(64)}`,
  });
  for (const bad of [
    '',
    'BusyBox',
    'busybox:',
    'a//b',
    '../x',
    'busybox:1 2',
    'ghcr.io/o/d@sha256:short',
    'evil.example:99999999x/a',
  ]) {
    t.equal(parseImage(bad), undefined, `${JSON.stringify(bad)} is not an image`);
  }
});

t.test('the allowlist matches registry and repository, never a string prefix across a host', async (t) => {
  const list = parseList(' busybox*, ghcr.io/org/debug:1 ,')!;
  // busybox*: Docker Hub's busybox, any tag or digest.
  for (const ok of [
    'busybox',
    'busybox:1.36',
    'docker.io/library/busybox:1.36',
    'index.docker.io/library/busybox',
    `busybox@sha256:${'b'.repeat(64)}`,
  ]) {
    t.ok(imageAllowed(ok, list), `${ok} allowed`);
  }
  for (const no of [
    'busybox.evil.example/pwn',
    'busybox.evil.example/library/busybox',
    'busyboxevil:1',
    'evil/busybox',
    'docker.io/busybox-x',
    'busybox:1.36/x',
    'ghcr.io/busybox',
  ]) {
    t.notOk(imageAllowed(no, list), `${no} refused`);
  }
  // An exact tag is only that tag.
  t.ok(imageAllowed('ghcr.io/org/debug:1', list));
  t.notOk(imageAllowed('ghcr.io/org/debug:2', list));
  t.notOk(imageAllowed('ghcr.io/org/debug', list), 'no tag is :latest, not :1');
  t.notOk(imageAllowed('ghcr.io/org/debug:1.evil', list));
  t.notOk(imageAllowed('ghcr.io/org/debugger:1', list));

  // A repository without a tag: any tag; `:latest` is what no tag means.
  t.ok(imageAllowed('ghcr.io/org/debug:7', ['ghcr.io/org/debug']));
  t.notOk(imageAllowed('ghcr.io/org/debugger:7', ['ghcr.io/org/debug']));
  t.ok(imageAllowed('nicolaka/netshoot', ['nicolaka/netshoot:latest']));
  t.notOk(imageAllowed('nicolaka/netshoot:v1', ['nicolaka/netshoot:latest']));
  t.ok(imageAllowed('busybox:1.36', ['busybox:*']));
  t.notOk(
    imageAllowed(`nicolaka/netshoot@sha256:${'e'.repeat(64)}`, ['nicolaka/netshoot:latest']),
    'a digest alone is not :latest',
  );

  // path/*: the repositories below a path of one registry, on a path-segment boundary.
  const org = ['ghcr.io/org/*'];
  t.ok(imageAllowed('ghcr.io/org/a:1', org));
  t.ok(imageAllowed('ghcr.io/org/a/b', org));
  t.ok(imageAllowed('GHCR.io/org/a', org), 'host names are case-insensitive');
  t.notOk(imageAllowed('ghcr.io/orgx/a', org));
  t.notOk(imageAllowed('ghcr.io.evil.example/org/a', org));
  t.notOk(imageAllowed('docker.io/org/a', org));
  t.ok(imageAllowed('anything/at:all', ['docker.io/*']));
  t.notOk(imageAllowed('quay.io/anything', ['docker.io/*']));

  // Digests are exact.
  const digest = `sha256:${'c'.repeat(64)}`;
  t.ok(imageAllowed(`ghcr.io/o/d@${digest}`, [`ghcr.io/o/d@${digest}`]));
  t.notOk(imageAllowed(`ghcr.io/o/d@sha256:${'d'.repeat(64)}`, [`ghcr.io/o/d@${digest}`]));
  t.notOk(imageAllowed('ghcr.io/o/d:1', [`ghcr.io/o/d@${digest}`]));

  // `*` is the explicit "any image"; no entry, an invalid entry or an invalid image allows nothing.
  t.ok(imageAllowed('quay.io/x/y:z', ['*']));
  t.notOk(imageAllowed('busybox', []));
  t.notOk(imageAllowed('busybox', ['busy*box', 'ghcr.io/o/debug-*', 'busybox:1*']));
  t.notOk(imageAllowed('busybox:1', ['busybox:1*']), '`*` is no tag pattern: the entry is invalid');
  t.notOk(imageAllowed(`busybox@sha256:${'f'.repeat(64)}`, [`busybox@sha256:${'f'.repeat(64)}*`]));
  t.notOk(imageAllowed('Not An Image', ['*']));
  t.ok(imageAllowed('busybox', ['nothing-here', 'busybox']), 'any entry may allow');
});

t.test('the author check off is said at start', async (t) => {
  t.same(policyWarnings({}), []);
  t.same(policyWarnings({ METAOPS_DEBUG_AUTHOR_CHECK: 'subjectaccessreview' }), []);
  t.match(policyWarnings({ METAOPS_DEBUG_AUTHOR_CHECK: 'off' }), [
    /^METAOPS_DEBUG_AUTHOR_CHECK=off: PodBuggerTools act with the hook server's rights, whoever wrote them/,
  ]);
});
