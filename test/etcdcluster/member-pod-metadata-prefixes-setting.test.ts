// Which label and annotation keys an EtcdCluster's spec.pod may put on its member pods: keys without a prefix,
// app.kubernetes.io/ and prometheus.io/ always; other prefixes only where the server's administrator names them in
// METAOPS_POD_METADATA_PREFIXES (exactly, as *.<domain> for its subdomains, or * for any). A running cluster edited to
// a refused key keeps its members as they are; the setting is checked at start.
import t from 'tap';
import { etcdSettings, etcdSettingsProblems } from '../../hooks/etcdcommon/index.js';
import { etcdRefusal } from '../fixtures/etcd.js';
import { podEditedThenLost, running } from '../fixtures/etcd-loop.js';

const spec = (pod: Record<string, unknown>) => ({ size: 1, version: '3.5.0', pod });

t.test('keys without a prefix, app.kubernetes.io/ and prometheus.io/ are every member pod’s', async (t) => {
  const pod = {
    labels: { team: 'a', 'app.kubernetes.io/part-of': 'shop' },
    annotations: { note: 'x', 'prometheus.io/scrape': 'true', 'prometheus.io/port': '2379' },
  };
  t.equal(await etcdRefusal(spec(pod)), undefined);
  const loop = await running(spec(pod));
  const member = loop.children.find((c) => c.kind === 'Pod');
  t.match(member?.metadata, { labels: pod.labels, annotations: pod.annotations }, 'the member carries them');
});

t.test('another prefix is InvalidSpec naming the key and the setting, unless the setting names it', async (t) => {
  const pod = { annotations: { 'example.com/owner': 'team-a' } };
  t.match(
    await etcdRefusal(spec(pod)),
    /spec\.pod\.annotations\["example\.com\/owner"\].*METAOPS_POD_METADATA_PREFIXES \(it names none\)/,
  );
  t.equal(await etcdRefusal(spec(pod), { podMetadataPrefixes: ['example.com'] }), undefined, 'named exactly');
  t.equal(await etcdRefusal(spec(pod), { podMetadataPrefixes: ['*'] }), undefined, '* names every prefix');
  t.match(
    await etcdRefusal(spec(pod), { podMetadataPrefixes: ['*.example.com'] }),
    /names "\*\.example\.com"/,
    '*.example.com is its subdomains, not example.com itself',
  );
  const sub = { labels: { 'team.example.com/tier': 'db' } };
  t.equal(await etcdRefusal(spec(sub), { podMetadataPrefixes: ['*.example.com'] }), undefined, 'a subdomain');
  t.match(await etcdRefusal(spec(sub), { podMetadataPrefixes: ['example.com'] }), /spec\.pod\.labels\["team\./);
  t.match(
    await etcdRefusal(spec({ labels: { 'xexample.com/a': 'b' } }), { podMetadataPrefixes: ['*.example.com'] }),
    /spec\.pod\.labels/,
    'a name that only ends the same is no subdomain',
  );
});

t.test('aadpodidbinding (no prefix) only where the setting names it', async (t) => {
  const pod = { labels: { aadpodidbinding: 'team-a-identity' } };
  t.match(await etcdRefusal(spec(pod)), /spec\.pod\.labels\["aadpodidbinding"\]/);
  t.equal(await etcdRefusal(spec(pod), { podMetadataPrefixes: ['aadpodidbinding'] }), undefined);
  t.equal(await etcdRefusal(spec(pod), { podMetadataPrefixes: ['*'] }), undefined);
});

t.test('AppArmor and seccomp annotations: only confined profiles, whatever the setting allows', async (t) => {
  const all = { podMetadataPrefixes: ['*'] };
  const ok = {
    'container.apparmor.security.beta.kubernetes.io/etcd': 'runtime/default',
    'container.apparmor.security.beta.kubernetes.io/check-dns': 'localhost/etcd-profile',
    'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default',
  };
  t.equal(await etcdRefusal(spec({ annotations: ok }), all), undefined);
  for (const [key, value] of <Array<[string, string]>>[
    ['container.apparmor.security.beta.kubernetes.io/etcd', 'unconfined'],
    ['container.apparmor.security.beta.kubernetes.io/etcd', 'Unconfined '],
    ['seccomp.security.alpha.kubernetes.io/pod', 'unconfined'],
    ['container.seccomp.security.alpha.kubernetes.io/etcd', 'unconfined'],
  ])
    t.match(
      await etcdRefusal(spec({ annotations: { [key]: value } }), all),
      new RegExp(`spec\\.pod\\.annotations\\["${key.replaceAll('.', '\\.')}"\\].*baseline`),
      `${key}: ${value}`,
    );
});

t.test('a running cluster edited to a refused key keeps its members, none carries the key', async (t) => {
  const { loop } = await podEditedThenLost({ annotations: { 'sidecar.istio.io/proxyImage': 'evil:1' } }, 'e-1');
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Ready'),
    { reason: 'InvalidSpec' },
  );
  t.same(loop.pods(), ['e-0', 'e-2'], 'the members kept, the lost one not made again');
  t.notOk(
    loop.children.some((c) => c.kind === 'Pod' && 'sidecar.istio.io/proxyImage' in (c.metadata.annotations ?? {})),
  );
});

t.test('METAOPS_POD_METADATA_PREFIXES: read in lower case; an entry of another form stops the server', async (t) => {
  const env = { METAOPS_POD_METADATA_PREFIXES: ' Example.com , *.corp.example,*,aadpodidbinding ' };
  t.same(etcdSettings({ env } as never).podMetadataPrefixes, ['example.com', '*.corp.example', '*', 'aadpodidbinding']);
  t.same(etcdSettingsProblems(env), []);
  for (const bad of ['example.com/', 'a..b', '*example.com', 'ex ample', '-a.com', `${'a'.repeat(254)}`])
    t.match(
      etcdSettingsProblems({ METAOPS_POD_METADATA_PREFIXES: bad }),
      [/METAOPS_POD_METADATA_PREFIXES: .* is no key prefix/],
      JSON.stringify(bad),
    );
});
