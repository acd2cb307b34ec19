import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import t from 'tap';
import YAML from 'yaml';
import { operators as hooks } from '../../main/operators.js';
import { controller, crd, PRODUCTION_TARGET, structural } from '../../lib/manifests.js';
import { renderManifests } from '../../scripts/render-manifests.js';
import { defaultsPresent, specParser } from '../../lib/spec.js';
import { root } from '../fixtures/requests.js';

t.test('the committed CRDs and controllers are what the schemas generate', async (t) => {
  const files = renderManifests();
  t.ok(files.size >= 6);
  for (const [path, text] of files) {
    const committed = readFileSync(join(root, 'manifests', path), 'utf8');
    t.equal(committed, text, `manifests/${path} is up to date (run npm run manifests)`);
  }
  for (const dir of ['crds', 'controllers']) {
    for (const name of readdirSync(join(root, 'manifests', dir))) {
      t.ok(files.has(`${dir}/${name}`), `manifests/${dir}/${name} is generated, not left over`);
    }
  }
});

/** The openAPIV3Schema of a generated CRD, checked the way the API server would: defaults first. */
function validator(kind: string) {
  const def = hooks.find((h) => h.type === 'composite' && h.resource.kind === kind);
  if (!def || def.type !== 'composite') throw new Error(kind);
  const schema = (crd(def.resource) as any).spec.versions[0].schema.openAPIV3Schema;
  const ajv = new Ajv({ strict: false, useDefaults: true, allErrors: true });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(schema);
}

t.test('the seed resources in manifests/examples validate against the generated CRDs', async (t) => {
  const dir = join(root, 'manifests', 'examples');
  const seen: string[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    for (const doc of YAML.parseAllDocuments(readFileSync(join(dir, name), 'utf8'))) {
      const obj = doc.toJS();
      const validate = validator(obj.kind);
      t.ok(validate(obj), `${name}: ${JSON.stringify(validate.errors)}`);
      seen.push(obj.kind);
    }
  }
  t.same(seen.sort(), [
    'EtcdBackup',
    'EtcdCluster',
    'EtcdRestore',
    'Memcached',
    'MySQLCluster',
    'PodBuggerTool',
    'PodSet',
    'S3',
  ]);
});

t.test(
  'a spec defaulted by the API server (from the CRD) is what the hook would default it to, and is taken as it is',
  async (t) => {
    const dir = join(root, 'manifests', 'examples');
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      for (const doc of YAML.parseAllDocuments(readFileSync(join(dir, name), 'utf8'))) {
        const raw = doc.toJS();
        const served = doc.toJS();
        t.ok(validator(served.kind)(served));
        const def = hooks
          .flatMap((h) => (h.type === 'composite' ? [h.resource] : []))
          .find((r) => r.kind === served.kind)!;
        t.ok(defaultsPresent(def.spec)(served.spec), `${name} ${served.kind}: every default is there`);
        t.notOk(defaultsPresent(def.spec)({}), `${served.kind}: an empty spec lacks defaults`);
        const parser = specParser(def.spec);
        const fast = parser.parse(served.spec);
        t.same(fast, parser.parse(raw.spec), `${name} ${served.kind}: same spec either way`);
        if (fast.ok) t.equal(fast.spec, served.spec, 'no copy made');
        t.same(parser.parse(null), parser.parse({}), `${served.kind}: a null spec reads as an empty one`);
      }
    }
  },
);

t.test('kustomization.yaml installs every generated manifest', async (t) => {
  const k = YAML.parse(readFileSync(join(root, 'manifests', 'kustomization.yaml'), 'utf8'));
  for (const path of renderManifests().keys())
    if (path !== 'kustomization.yaml') t.ok(k.resources.includes(path), `${path} is in kustomization.yaml`);
});

t.test('the seed MySQLCluster is read as YAML reads it: version 8.0 is the number 8', async (t) => {
  const obj = YAML.parse(readFileSync(join(root, 'manifests', 'examples', 'mysqlcluster.yaml'), 'utf8'));
  t.equal(obj.spec.version, 8);
  const validate = validator('MySQLCluster');
  t.ok(validate(obj));
  t.same(obj.spec.storage, { size: '1Gi' }, 'defaults are applied as the API server would');
});

t.test('the CRDs reject what the API server must reject', async (t) => {
  const validate = validator('Memcached');
  t.notOk(validate({ apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', metadata: {}, spec: { size: -1 } }));
  t.notOk(validate({ apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', metadata: {}, spec: {} }));
  t.ok(validate({ apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', metadata: {}, spec: { size: 0 } }));
});

t.test('CRD schemas are structural', async (t) => {
  for (const def of hooks) {
    if (def.type !== 'composite') continue;
    const schema = (crd(def.resource) as any).spec.versions[0].schema.openAPIV3Schema;
    const problems: string[] = [];
    const walk = (node: any, path: string) => {
      if (!node || typeof node !== 'object') return;
      for (const bad of ['$ref', '$id', 'anyOf', 'oneOf', 'allOf', 'patternProperties', 'const']) {
        if (bad in node) problems.push(`${path} has ${bad}`);
      }
      if (!node.type && !node['x-kubernetes-preserve-unknown-fields'] && !node['x-kubernetes-int-or-string']) {
        problems.push(`${path} has no type`);
      }
      if (node.additionalProperties === false) problems.push(`${path} has additionalProperties: false`);
      for (const [k, v] of Object.entries(node.properties ?? {})) walk(v, `${path}.${k}`);
      if (node.items) walk(node.items, `${path}[]`);
      if (node.additionalProperties && typeof node.additionalProperties === 'object')
        walk(node.additionalProperties, `${path}{}`);
    };
    walk(schema, def.resource.kind);
    t.same(problems, [], `${def.resource.kind} is structural`);
    const columns = (crd(def.resource) as any).spec.versions[0].additionalPrinterColumns.map((c: any) => c.name);
    t.ok(
      columns.includes('AGE') && columns.length >= 3,
      `${def.resource.kind} has printer columns: ${columns.join(' ')}`,
    );
  }
});

t.test('structural(): unions, records and nullables', async (t) => {
  t.same(structural({ anyOf: [{ const: 'A' }, { const: 'B' }] } as any), { type: 'string', enum: ['A', 'B'] });
  t.same(structural({ anyOf: [{ type: 'string' }, { type: 'null' }] } as any), { type: 'string', nullable: true });
  t.same(structural({ type: 'object', patternProperties: { '^(.*)$': { type: 'string' } } } as any), {
    type: 'object',
    additionalProperties: { type: 'string' },
  });
  t.throws(() => structural({ anyOf: [{ type: 'string' }, { type: 'number' }] } as any), /structural/);
});

t.test('controllers can send the hook token (Metacontroller webhook authorization)', async (t) => {
  const def = hooks.find((h) => h.name === 's3')!;
  const c = controller(def, {
    target: PRODUCTION_TARGET,
    authorization: { namespace: 'metaops', name: 'metaops-hook-token', key: 'token' },
  }) as any;
  for (const hook of ['sync', 'finalize']) {
    t.same(c.spec.hooks[hook].webhook.authorization, {
      type: 'Bearer',
      secretRef: { namespace: 'metaops', name: 'metaops-hook-token', key: 'token' },
    });
  }
  const plain = controller(def, { target: PRODUCTION_TARGET }) as any;
  t.notOk(plain.spec.hooks.sync.webhook.authorization, 'off unless asked for');
});

t.test(
  'every webhook of every shipped controller carries credentials, and the Deployment requires the token',
  async (t) => {
    const dir = join(root, 'manifests', 'controllers');
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    t.equal(files.length, hooks.length, 'one controller per hook definition');
    for (const file of files) {
      const doc = YAML.parse(readFileSync(join(dir, file), 'utf8'));
      const webhooks = Object.entries(doc.spec.hooks as Record<string, { webhook: Record<string, unknown> }>);
      t.ok(webhooks.length > 0);
      for (const [hook, { webhook }] of webhooks) {
        t.same(
          webhook['authorization'],
          { type: 'Bearer', secretRef: { namespace: 'metaops', name: 'metaops-hook-token', key: 'token' } },
          `${file} ${hook}: sends the token`,
        );
      }
    }
    const deployment = YAML.parse(readFileSync(join(root, 'manifests', 'deploy', 'deployment.yaml'), 'utf8'));
    const env = deployment.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: any }>;
    const token = env.find((e) => e.name === 'METAOPS_AUTH_TOKEN');
    t.same(
      token?.valueFrom?.secretKeyRef,
      { name: 'metaops-hook-token', key: 'token' },
      'the token is read from the Secret, not optional',
    );
    t.notOk(
      env.some((e) => e.name === 'METAOPS_ALLOW_UNAUTHENTICATED'),
      'the Deployment never opts out',
    );
  },
);

t.test(
  "no shipped controller relies on Metacontroller's Rolling* update strategies (they never finish on v4)",
  async (t) => {
    // v4.17.2 keys observed children by namespace/name (pkg/controller/common/api/v2/common.go, qualifiedName) and its
    // rolling update looks them up by bare name (pkg/controller/composite/rolling_update.go, FindGroupKindName): a
    // namespaced child is never found, and a rollout waits forever on "missing child" (docs/metacontroller.md).
    const rolling: string[] = [];
    for (const def of hooks) {
      const c = controller(def, { target: PRODUCTION_TARGET }) as any;
      const rules = (c.spec.childResources ?? c.spec.attachments ?? []) as Array<{
        resource: string;
        updateStrategy?: any;
      }>;
      for (const r of rules)
        if (/^Rolling/.test(r.updateStrategy?.method ?? '')) rolling.push(`${def.name} ${r.resource}`);
    }
    t.same(rolling, [], 'no child rule rolls');
    const podset = controller(
      hooks.find((d) => d.name === 'podset')!,
      { target: PRODUCTION_TARGET },
    ) as any;
    t.same(podset.spec.childResources[0].updateStrategy, { method: 'OnDelete' }, 'PodSet rolls its pods itself');
  },
);

t.test('every sized kind has a scale subresource (kubectl scale, HorizontalPodAutoscaler)', async (t) => {
  const sized = hooks.filter((h) => h.type === 'composite' && (h.resource.spec as any).properties?.size);
  t.same(sized.map((h) => h.name).sort(), ['etcdcluster', 'memcached', 'mysqlcluster', 'podset']);
  for (const def of sized) {
    if (def.type !== 'composite') continue;
    const scale = (crd(def.resource) as any).spec.versions[0].subresources.scale;
    t.match(
      scale,
      {
        specReplicasPath: '.spec.size',
        labelSelectorPath: '.status.selector',
        statusReplicasPath: /^\.status\.(replicas|size)$/,
      },
      def.name,
    );
    t.ok((def.resource.status as any).properties.selector, `${def.name}: status.selector is in the schema`);
  }
});

t.test('sized kinds have a scale subresource whose selector is the one their status reports', async (t) => {
  const { podsetSync, memcachedSync } = await import('../fixtures/hooks.js');
  const { example, FIXED_NOW } = await import('../fixtures/requests.js');
  for (const [name, sync] of [
    ['podset', podsetSync],
    ['memcached', memcachedSync],
  ] as const) {
    const def = hooks.find((h) => h.name === name)!;
    if (def.type !== 'composite') throw new Error('composite');
    const c = crd(def.resource) as any;
    t.same(
      c.spec.versions[0].subresources.scale,
      { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
      `${name}: scale`,
    );
    const res = sync(example(`${name}-sync`), FIXED_NOW);
    const selector = String(res.status!['selector']);
    const pod =
      res.children.find((o) => o.kind === 'Pod') ??
      (res.children.find((o) => o.kind === 'Deployment') as any)?.spec.template;
    for (const pair of selector.split(',')) {
      const [k, v] = pair.split('=');
      t.equal(pod.metadata.labels[k!], v, `${name}: the pods carry ${pair}`);
    }
  }
});

t.test(
  'ETag: with an expiring cache everywhere, and off where children roll (v4.17 calls once per revision)',
  async (t) => {
    for (const def of hooks) {
      const c = controller(def, { target: PRODUCTION_TARGET }) as any;
      const rolls = (def.type === 'composite' ? def.childResources : def.attachments).some((r) =>
        /^Rolling/.test(r.updateStrategy?.method ?? ''),
      );
      for (const [hook, { webhook }] of Object.entries(c.spec.hooks as Record<string, { webhook: any }>)) {
        if (hook === 'customize' || rolls) t.notOk(webhook.etag, `${def.name} ${hook}: no etag`);
        else
          t.same(
            webhook.etag,
            { enabled: true, cacheTimeoutSeconds: 600, cacheCleanupSeconds: 300 },
            `${def.name} ${hook}: etag that expires`,
          );
      }
    }
    t.ok(
      hooks.some(
        (d) =>
          d.name === 'podset' && (controller(d, { target: PRODUCTION_TARGET }) as any).spec.hooks.sync.webhook.etag,
      ),
      'PodSet (OnDelete, it rolls its pods itself) has one',
    );
  },
);

t.test(
  'the hooks RBAC grants exactly create and patch on events.k8s.io events, and nothing on core events',
  async (t) => {
    const docs = YAML.parseAllDocuments(readFileSync(join(root, 'manifests', 'deploy', 'rbac.yaml'), 'utf8')).map((d) =>
      d.toJS(),
    );
    const role = docs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'metaops-hooks');
    const rules = role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    const events = rules.filter((r) => r.resources.includes('events') || r.resources.includes('*'));
    t.same(events, [{ apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] }]);
    t.notOk(
      rules.some((r) => r.verbs.includes('*') || r.resources.includes('*') || r.apiGroups.includes('*')),
      'no wildcard',
    );
  },
);
