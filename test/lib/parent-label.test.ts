// The parent label by which Memcached and EtcdBackup ask for their pods (lib/parent-label.ts): a keyed MAC of kind,
// namespace and name. Stable for a namespace/name (Metacontroller v1.5.20 keeps customize answers by name and
// generation, so a parent made again under its name must ask for the same value), different for another namespace,
// and not computable by a tenant without the server's key (v1.5.20 matches a rule by labels alone, any namespace).
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ConfigError, settingsFromEnv } from '../../lib/config.js';
import { labelKeyFrom, parentLabelValue, parentLabelWarnings } from '../../lib/parent-label.js';
import { configWarnings } from '../../main/operators.js';

const TOKEN = 'a-token-of-the-hook-server-0123456789';
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

t.test('a value is a label value of 40 hex characters, a function of kind, namespace and name', async (t) => {
  const key = labelKeyFrom({ METAOPS_AUTH_TOKEN: TOKEN });
  const v = parentLabelValue(key, 'Memcached', 'team-b', 'cache');
  t.match(v, /^[0-9a-f]{40}$/);
  t.ok(LABEL_VALUE.test(v) && v.length <= 63, 'a valid label value');
  t.equal(parentLabelValue(key, 'Memcached', 'team-b', 'cache'), v, 'the same parent name: the same value');
  t.not(parentLabelValue(key, 'Memcached', 'team-a', 'cache'), v, 'another namespace: another value');
  t.not(parentLabelValue(key, 'EtcdBackup', 'team-b', 'cache'), v, 'another kind: another value');
  t.not(parentLabelValue(key, 'Memcached', 'team-b', 'cache2'), v, 'another name: another value');
  t.not(parentLabelValue(key, 'Memcached', 'team-b/x', 'y'), parentLabelValue(key, 'Memcached', 'team-b', 'x/y'));
});

t.test('the key is not derivable from what a tenant sees', async (t) => {
  const key = labelKeyFrom({ METAOPS_AUTH_TOKEN: TOKEN })!;
  const v = parentLabelValue(key, 'Memcached', 'team-b', 'cache');
  const text = JSON.stringify(['Memcached', 'team-b', 'cache']);
  for (const guess of [
    createHash('sha256').update(text).digest('hex').slice(0, 40),
    createHash('sha1').update(text).digest('hex'),
    parentLabelValue(undefined, 'Memcached', 'team-b', 'cache'),
    parentLabelValue(Buffer.alloc(32), 'Memcached', 'team-b', 'cache'),
  ])
    t.not(v, guess, `not ${guess}`);
  t.not(key.toString('utf8').includes(TOKEN), true, 'the key is not the token');
  t.not(
    parentLabelValue(labelKeyFrom({ METAOPS_AUTH_TOKEN: `${TOKEN}x` }), 'Memcached', 'team-b', 'cache'),
    v,
    'another server credential: another value',
  );
  t.not(key.equals(Buffer.from(TOKEN)), true);
});

t.test('where the key comes from', async (t) => {
  const own = 'l'.repeat(40);
  t.same(labelKeyFrom({ METAOPS_LABEL_KEY: own, METAOPS_AUTH_TOKEN: TOKEN }), labelKeyFrom({ METAOPS_LABEL_KEY: own }));
  t.notSame(labelKeyFrom({ METAOPS_LABEL_KEY: own }), labelKeyFrom({ METAOPS_AUTH_TOKEN: TOKEN }), 'its own key first');
  t.same(
    labelKeyFrom({ METAOPS_AUTH_TOKEN: TOKEN }),
    labelKeyFrom({ METAOPS_AUTH_TOKEN: TOKEN }),
    'stable across starts',
  );
  t.ok(labelKeyFrom({ METAOPS_BASIC_AUTH: 'user:a-password-of-the-server' }), 'or from Basic credentials');
  const dir = mkdtempSync(join(tmpdir(), 'metaops-label-'));
  writeFileSync(join(dir, 'key'), `${own}\n`);
  t.same(labelKeyFrom({ METAOPS_LABEL_KEY_FILE: join(dir, 'key') }), labelKeyFrom({ METAOPS_LABEL_KEY: own }), '_FILE');
  t.equal(labelKeyFrom({}), undefined, 'none without a key or credential (never a key of the process)');
  t.equal(
    parentLabelValue(labelKeyFrom({}), 'Memcached', 'ns', 'x'),
    parentLabelValue(labelKeyFrom({}), 'Memcached', 'ns', 'x'),
    'without one the value is stable all the same',
  );
});

t.test('without a key the server starts and says what it means, once', async (t) => {
  t.same(parentLabelWarnings({ METAOPS_AUTH_TOKEN: TOKEN }), []);
  const none = configWarnings({});
  t.equal(none.filter((w) => w.includes('METAOPS_LABEL_KEY')).length, 1, 'said once for Memcached and EtcdBackup');
  t.match(none.join('\n'), /v1\.5\.20/);
  t.doesNotThrow(() => settingsFromEnv({ METAOPS_ALLOW_UNAUTHENTICATED: 'true' }));
});

t.test('a METAOPS_LABEL_KEY too short or empty stops the server', async (t) => {
  t.throws(() => settingsFromEnv({ METAOPS_AUTH_TOKEN: TOKEN, METAOPS_LABEL_KEY: 'short' }), ConfigError);
  t.throws(() => settingsFromEnv({ METAOPS_AUTH_TOKEN: TOKEN, METAOPS_LABEL_KEY: ' ' }), ConfigError);
  t.doesNotThrow(() => settingsFromEnv({ METAOPS_AUTH_TOKEN: TOKEN, METAOPS_LABEL_KEY: 'k'.repeat(32) }));
});
