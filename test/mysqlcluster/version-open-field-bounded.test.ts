// MySQLCluster spec.version is the one open field (YAML reads 8.0 as the number 8, so it takes a string or a number).
// It becomes the members' image tag and is quoted in the status: it takes what a MySQL version looks like (digits and
// dots such as 8.0.36, with the image's -debian or -oracle variant), in the CRD and in the hook (InvalidSpec naming
// the field), and whatever a tenant wrote is quoted in messages only in part.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request, root } from '../fixtures/requests.js';

const ready = (res: any) => (res.status.conditions as any[]).find((c: any) => c.type === 'Ready');

function versionSchema(): any {
  const crd = parse(readFileSync(join(root, 'manifests', 'crds', 'mysqlclusters.database.example.com.yaml'), 'utf8'));
  return crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.version;
}

t.test('the CRD bounds spec.version: a pattern of digits and dots, a short length, a numeric range', async (t) => {
  const v = versionSchema();
  t.type(v.pattern, 'string', `a pattern (${JSON.stringify(v)})`);
  const re = new RegExp(v.pattern);
  for (const ok of ['8.0', '8.0.36', '8', '8.4.2', '8.0.40-oracle', '8.0-debian']) t.ok(re.test(ok), ok);
  for (const bad of ['8.0.36-' + 'a'.repeat(50), 'latest', '8.0.36 ', '8.0.36;rm', '8..0', '08.0.36.1'])
    t.notOk(re.test(bad), bad);
  t.ok(v.maxLength <= 20, `maxLength ${v.maxLength}`);
  t.ok(typeof v.maximum === 'number' && v.maximum <= 1000, `maximum ${v.maximum}`);
});

for (const version of ['8.0.36-' + 'a'.repeat(50), '8.0.36-x', '80000.0.36', '8.0.36.1']) {
  t.test(`spec.version ${JSON.stringify(version).slice(0, 30)} is InvalidSpec, naming the field`, async (t) => {
    const res = mysqlSync(request('mysqlcluster', { size: 1, version }), FIXED_NOW);
    const r = ready(res);
    t.match(r, { status: 'False', reason: 'InvalidSpec' });
    t.match(r.message, /spec\.version/);
    t.same(res.children, [], 'nothing is made');
  });
}

t.test('a long value (past a CRD not applied) is quoted in part', async (t) => {
  const version = '8.0.' + '9'.repeat(5000);
  const res = mysqlSync(request('mysqlcluster', { size: 1, version }), FIXED_NOW);
  const r = ready(res);
  t.match(r, { status: 'False', reason: 'InvalidSpec' });
  t.ok(r.message.length < 400, `message of ${r.message.length} characters`);
  const obj = { x: 'y'.repeat(5000) };
  const res2 = mysqlSync(request('mysqlcluster', { size: 1, version: obj }), FIXED_NOW);
  t.ok(ready(res2).message.length < 400, `message of ${ready(res2).message.length} characters`);
});

t.test('versions MySQL has are still taken', async (t) => {
  for (const version of ['8.0.36', '8.0', 8, '8.4.2', '8.0.40-oracle']) {
    const res = mysqlSync(request('mysqlcluster', { size: 1, version }), FIXED_NOW);
    t.not(ready(res).reason, 'InvalidSpec', `${version}: ${ready(res).message}`);
  }
});
