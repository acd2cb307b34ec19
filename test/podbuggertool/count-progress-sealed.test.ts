// A count cut short keeps where it stopped in the tool's status (countProgress.continue), which the tool's author
// reads. The API server's continue token names the next pod (test/real/podbuggertool-count-progress-names-no-pod-real
// .test.ts): it is kept there sealed (hooks/podbuggertool/seal.ts), opening only for the hook server, only for the tool
// and spec it was written for, and of one length whatever the name; every replica of the server, and the server after
// a restart, derive the same key from the server's credential, so a count goes on wherever it is called.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { toolSettings } from '../../hooks/podbuggertool/inject.js';
import { countKeyFrom, MAX_SEALED_TOKEN, openToken, sealToken } from '../../hooks/podbuggertool/seal.js';
import { tool } from '../fixtures/pbt.js';

/** A token as kube-apiserver writes it: base64 JSON of the resourceVersion and the next key (the pod's name). */
const apiToken = (name: string) =>
  Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 4242, start: `${name}\u0000` })).toString('base64');

const a = () => {
  const x = tool('a', { label: 'app=web', image: 'busybox' });
  x.metadata.generation = 3;
  return x;
};

t.test('sealed: opens to the token for its tool and spec, names no pod, tells no length', async (t) => {
  const key = countKeyFrom({ METAOPS_AUTH_TOKEN: 'token-0123456789abcdef' });
  const token = apiToken('payroll-db-250');
  const sealed = sealToken(key, a(), token)!;
  t.match(sealed, /^s1\.[A-Za-z0-9_-]+$/);
  t.equal(openToken(key, a(), sealed), token, 'opens for the hook server');
  for (const text of [sealed, Buffer.from(sealed.slice(3), 'base64url').toString('latin1')])
    t.notMatch(text, /payroll/, 'no name in it');
  t.equal(sealToken(key, a(), token), sealed, 'the same token seals the same: no new status while a count stands');
  t.equal(
    sealToken(key, a(), apiToken('p'))!.length,
    sealToken(key, a(), apiToken('p'.repeat(253)))!.length,
    'a name of 1 and one of 253 characters seal to the same length',
  );
  t.ok(sealed.length <= 4096, `within the CRD's 4096 characters (${sealed.length})`);
  t.ok(sealToken(key, a(), 'x'.repeat(MAX_SEALED_TOKEN))!.length <= 4096, 'the longest sealed fits the CRD too');
  t.equal(sealToken(key, a(), 'x'.repeat(MAX_SEALED_TOKEN + 1)), undefined, 'a longer one is not kept');
});

t.test('does not open: another tool, spec, key, a token in the clear, anything altered', async (t) => {
  const key = countKeyFrom({ METAOPS_AUTH_TOKEN: 'token-0123456789abcdef' });
  const sealed = sealToken(key, a(), apiToken('p1'))!;
  const other = a();
  other.metadata.uid = 'uid-other';
  t.equal(openToken(key, other, sealed), undefined, 'a tool of the same name made again');
  const b = tool('b', { label: 'app=web', image: 'busybox' });
  b.metadata.generation = 3;
  b.metadata.uid = a().metadata.uid;
  t.equal(openToken(key, b, sealed), undefined, 'another tool');
  const changed = a();
  changed.metadata.generation = 4;
  t.equal(openToken(key, changed, sealed), undefined, 'another spec');
  t.equal(openToken(countKeyFrom({ METAOPS_AUTH_TOKEN: 'another-token-0123456789' }), a(), sealed), undefined);
  t.equal(openToken(key, a(), apiToken('p1')), undefined, 'a token in the clear (an earlier version wrote it so)');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  raw[raw.length - 1] = raw.at(-1)! ^ 1;
  t.equal(openToken(key, a(), `s1.${raw.toString('base64url')}`), undefined, 'altered');
  t.equal(openToken(key, a(), `s1.${raw.subarray(0, 100).toString('base64url')}`), undefined, 'cut short');
  t.equal(openToken(key, a(), 's1.'), undefined);
});

t.test('every replica, and the server after a restart, derives the same key from its credential', async (t) => {
  const env = { METAOPS_AUTH_TOKEN: 'token-0123456789abcdef' };
  const one = toolSettings({ env }).countKey;
  const two = toolSettings({ env: { ...env } }).countKey;
  const sealed = sealToken(one, a(), apiToken('p1'))!;
  t.equal(openToken(two, a(), sealed), apiToken('p1'), 'written by one replica, opened by another');
  const dir = mkdtempSync(join(tmpdir(), 'pbt-seal-'));
  writeFileSync(join(dir, 'token'), 'token-0123456789abcdef\n');
  t.same(countKeyFrom({ METAOPS_AUTH_TOKEN_FILE: join(dir, 'token') }), one, 'the token from a file: the same key');
  t.notSame(countKeyFrom({ METAOPS_BASIC_AUTH: 'user:password-0123' }), one, 'basic auth: a key of its own');
  t.same(
    countKeyFrom({ METAOPS_BASIC_AUTH: 'user:password-0123' }),
    countKeyFrom({ METAOPS_BASIC_AUTH: 'user:password-0123' }),
  );
  // Without a credential: the process's own key (a count resumes only there).
  t.same(countKeyFrom({}), countKeyFrom({}));
  t.notSame(countKeyFrom({}), one);
  t.same(countKeyFrom({ METAOPS_AUTH_TOKEN_FILE: join(dir, 'none') }), countKeyFrom({}), 'an unreadable file: none');
  t.equal(openToken(undefined, a(), sealToken(countKeyFrom({}), a(), 'x')!), 'x', 'no key given: the process key');
});
