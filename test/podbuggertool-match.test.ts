// PodBuggerTool's pure decisions (hooks/podbuggertool/match.ts): image references as the runtime resolves them,
// allowlist entries matched by registry and repository, the container a tool adds (its name, its security
// context per profile), and the METAOPS_DEBUG_* checks. Expected values are written out, not computed by the
// code under test.
import { createHash } from 'node:crypto';
import t from 'tap';
import {
  allowlistEntry,
  containerName,
  DEFAULT_POLICY,
  ephemeralContainer,
  ephemeralImages,
  imageAllowed,
  parseImage,
  parser,
  policyProblems,
  refusal,
} from '../hooks/podbuggertool/match.js';
import type { KubeObject } from '../lib/metacontroller.js';

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
  t.strictSame(
    parseImage(`x@sha256+b64u:${'A'.repeat(43)}`),
    { registry: 'docker.io', repository: 'library/x', digest: `sha256+b64u:${'A'.repeat(43)}` },
    'a digest algorithm with a separator',
  );
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
  t.ok(
    allowlistEntry('ghcr.io/o/d:1')!(parseImage(`ghcr.io/o/d:1@${D('e')}`)!),
    'a tag and a digest: the tag is checked',
  );
  t.notOk(allowlistEntry(`ghcr.io/o/d@${D('e')}`)!(parseImage(`ghcr.io/o/d@${D('f')}`)!));
  t.notOk(allowlistEntry(`ghcr.io/o/d:1@${D('e')}`)!(parseImage(`ghcr.io/o/d:2@${D('e')}`)!), 'both must hold');
});

t.test('the container of a tool: its name, fields and the security context of each profile', async (t) => {
  const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 8);
  t.equal(containerName('web'), 'debug-web');
  t.equal(containerName('a--b'), `debug-a-b-${hash('a--b')}`, 'repeated dashes collapse, and the name is hashed');
  t.equal(containerName('A_'), `debug-a-${hash('A_')}`, 'a trailing dash is dropped');
  t.equal(containerName('x'.repeat(57)), `debug-${'x'.repeat(57)}`, '63 characters: kept');
  t.equal(containerName('x'.repeat(58)), `debug-${'x'.repeat(48)}-${hash('x'.repeat(58))}`, '64: cut and hashed');
  t.equal(
    containerName(`${'x'.repeat(47)}.yy`),
    `debug-${'x'.repeat(47)}-${hash(`${'x'.repeat(47)}.yy`)}`,
    'no dash before the hash twice',
  );

  t.strictSame(ephemeralContainer('t', spec({}), pod()), {
    name: 'debug-t',
    image: 'busybox',
    imagePullPolicy: 'IfNotPresent',
    stdin: true,
    tty: true,
    terminationMessagePolicy: 'File',
    securityContext: { capabilities: { add: ['SYS_PTRACE'] } },
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
  t.strictSame(profile('netadmin'), { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } });
  t.strictSame(profile('sysadmin'), { privileged: true });
  t.equal(profile('baseline'), undefined);
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
    message:
      'security profile sysadmin is not enabled on the server (general, baseline, restricted); nothing is injected',
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
});
