// The Helm chart (charts/metaops/) is generated from the same definitions as manifests/ (scripts/render-chart.ts):
// the committed files must be what the generator makes. Rendering it with Helm and comparing with kustomize's
// output is test/real/helm-chart.test.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { operators } from '../../main/operators.js';
import { operatorSwitch, renderChart } from '../../scripts/render-chart.js';
import { root } from '../fixtures/requests.js';

const chart = join(root, 'charts', 'metaops');
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [relative(chart, path)];
  });

t.test('the committed chart is what the definitions generate (npm run manifests)', async (t) => {
  const files = renderChart();
  for (const [path, text] of files)
    t.equal(readFileSync(join(chart, path), 'utf8'), text, `charts/metaops/${path} is up to date`);
  for (const path of walk(chart)) t.ok(files.has(path), `charts/metaops/${path} is generated, not left over`);
});

t.test('values: one switch per operator, and every knob the README names', async (t) => {
  const values = YAML.parse(renderChart().get('values.yaml')!);
  t.same(
    Object.keys(values.operators),
    operators.map((d) => d.name),
    'an operator added to main/operators.ts is in',
  );
  t.ok(
    Object.values(values.operators).every((on) => on === true),
    'all on by default, as kustomize installs them',
  );
  for (const key of ['image', 'replicas', 'resources', 'authToken', 'debugPolicy']) t.ok(key in values, key);
  t.same(values.image.tag, '', 'the image tag follows the chart appVersion');
});

t.test('each operator is its own switch: its CRD and its controller, nothing else', async (t) => {
  const files = renderChart();
  for (const def of operators) {
    const guarded = [...files].filter(([, text]) => text.includes(`{{- if ${operatorSwitch(def.name)} }}`));
    // Its CRD (a composite's), its controller, and what it ships besides (PodBuggerTool's admission policy).
    const expected = (def.type === 'composite' ? 2 : 1) + (def.manifests?.().length ?? 0);
    t.equal(guarded.length, expected, `${def.name}: ${guarded.map(([p]) => p).join(', ')}`);
  }
});

t.test("an operator's switch is a template expression whatever its name", async (t) => {
  t.equal(operatorSwitch('memcached'), '.Values.operators.memcached');
  t.equal(operatorSwitch('podbuggertool-injector'), 'index .Values.operators "podbuggertool-injector"');
  t.equal(operatorSwitch('_x1'), '.Values.operators._x1');
  t.equal(operatorSwitch('1x'), 'index .Values.operators "1x"');
});
