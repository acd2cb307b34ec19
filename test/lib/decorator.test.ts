// defineDecorator (lib/operator.ts): a DecoratorController operator through the same front door as defineComposite.
// The toy labeller (test/toy/labeller.ts) is served by adding it to the list: its hook is handed the object and the
// call context, its failures answer "change nothing", it is called directly with runHook and runPure, and its
// DecoratorController and shipped manifests are generated.
import t from 'tap';
import YAML from 'yaml';
import { buildApp } from '../../lib/app.js';
import { controller } from '../../lib/manifests.js';
import { defineDecorator, runHook, runPure } from '../../lib/operator.js';
import { operators as registry } from '../../main/operators.js';
import { renderManifests } from '../../scripts/render-manifests.js';
import { labeller } from '../toy/labeller.js';

const pod = (labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'toys', uid: 'u-p', labels },
});
const note = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'note', namespace: 'toys' },
  data: { seen: 'no' },
};
const request = (labels: Record<string, string>) => ({
  controller: {},
  object: pod(labels),
  attachments: { 'ConfigMap.v1': { note } },
  related: {
    'ConfigMap.v1': {
      a: { ...note, metadata: { name: 'a', namespace: 'toys' } },
      b: { ...note, metadata: { name: 'b', namespace: 'other' } },
    },
  },
});

t.test('the decorator definition: what the framework copies, and its hooks', async (t) => {
  t.equal(labeller.type, 'decorator');
  t.equal(labeller.name, 'labeller');
  t.equal(labeller.resyncPeriodSeconds, 30);
  t.same(labeller.settings?.({ env: { TOY_PREFIX: 'x' } }), { prefix: 'x' });
  t.ok(labeller.clients && labeller.finalize && labeller.customize && labeller.manifests);
  t.notOk('effects' in labeller, 'only what was declared');
  const answer = await runHook(labeller, 'sync', request({ labelled: 'yes' }) as never, { settings: { prefix: 'p' } });
  t.same(
    answer,
    { labels: { 'p/maps': '2' }, attachments: [{ ...note, data: { seen: 'yes' } }] },
    'runHook does not confine: the app does',
  );
  t.same(runPure(labeller, 'finalize', request({}) as never), {
    labels: { gone: 'p' },
    attachments: [],
    finalized: true,
  });
  t.throws(() => runPure(labeller, 'sync', request({}) as never), /answered asynchronously: use runHook/);
  t.same(labeller.customize!({ controller: {}, object: pod({}) } as never, {} as never), {
    relatedResources: [{ apiVersion: 'v1', resource: 'configmaps', namespace: 'toys' }],
  });
  const bare = defineDecorator({
    name: 'bare',
    resources: [{ apiVersion: 'v1', resource: 'pods' }],
    attachments: [],
    sync: () => ({ attachments: [] }),
  });
  t.same(Object.keys(bare).sort(), ['attachments', 'name', 'resources', 'sync', 'type']);
  t.throws(() => runHook(bare, 'finalize', request({}) as never), /bare has no finalize hook/);
});

t.test("a decorator's failures change nothing: attachments kept, no label, annotation or status", async (t) => {
  const warned: unknown[] = [];
  const log = { warn: (o: unknown) => warned.push(o), child: () => log } as never;
  const temporary = await runHook(labeller, 'sync', request({ broken: 'temporary' }) as never, { log });
  t.same(temporary, { attachments: [note], resyncAfterSeconds: 4 });
  const permanent = await runHook(labeller, 'sync', request({ broken: 'permanent' }) as never, { log });
  t.same(permanent, { attachments: [note] });
  t.match(warned, [
    { reason: 'NotYet', error: 'the pod is not ready to be labelled', temporary: true },
    { reason: 'Never', temporary: false },
  ]);
  await t.rejects(runHook(labeller, 'sync', request({ broken: 'bug' }) as never), /a bug/, 'a bug stays a bug');
  const sync = defineDecorator({
    name: 'sync-failing',
    resources: [{ apiVersion: 'v1', resource: 'pods' }],
    attachments: [],
    sync: () => {
      throw new Error('synchronously');
    },
    finalize: () => {
      throw new (class extends Error {})('x');
    },
  });
  t.throws(() => runPure(sync, 'sync', request({}) as never), /synchronously/);
  const { TemporaryError } = await import('../../lib/errors.js');
  const finalizing = defineDecorator({
    name: 'finalizing',
    resources: [{ apiVersion: 'v1', resource: 'pods' }],
    attachments: [],
    sync: () => ({ attachments: [] }),
    finalize: () => {
      throw new TemporaryError('Busy', 'not yet', { retryAfterSeconds: 3 });
    },
  });
  t.same(
    runPure(finalizing, 'finalize', request({}) as never, { log }),
    { attachments: [note], finalized: false, resyncAfterSeconds: 3 },
    'a finalize that failed does not release the object',
  );
});

t.test('served by adding it to the list: routes, confinement, the deadline, 500 for a bug', async (t) => {
  const app = buildApp({ operators: [...registry, labeller], allowUnauthenticated: true, hookDeadlineMs: 200 });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/hooks/labeller/sync', payload: request({ labelled: 'yes' }) });
  t.equal(res.statusCode, 200);
  t.same(
    res.json(),
    { labels: { 'toy/maps': '1' }, attachments: [{ ...note, data: { seen: 'yes' } }] },
    "only the object's namespace",
  );
  t.equal(
    (await app.inject({ method: 'POST', url: '/hooks/labeller/finalize', payload: request({}) })).statusCode,
    200,
  );
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/hooks/labeller/customize',
        payload: { controller: {}, object: pod({}) },
      })
    ).statusCode,
    200,
  );
  t.equal(
    (await app.inject({ method: 'POST', url: '/hooks/labeller/sync', payload: request({ broken: 'bug' }) })).statusCode,
    500,
  );
  const hooks = (await app.inject({ url: '/hooks' })).json().hooks.filter((h: any) => h.name === 'labeller');
  t.same(
    hooks.map((h: any) => [h.type, h.hook, h.kind]),
    [
      ['decorator', 'sync', 'labeller'],
      ['decorator', 'finalize', 'labeller'],
      ['decorator', 'customize', 'labeller'],
    ],
  );
});

t.test('its DecoratorController and the manifests it ships are generated', async (t) => {
  const target = { kind: 'service' as const, name: 'metaops', namespace: 'metaops', port: 80 };
  const dc = controller(labeller, { target }) as any;
  t.match(dc, {
    kind: 'DecoratorController',
    metadata: { name: 'metaops-labeller' },
    spec: {
      resources: [
        {
          apiVersion: 'v1',
          resource: 'pods',
          labelSelector: { matchLabels: { labelled: 'yes' } },
          ignoreStatusChanges: true,
        },
      ],
      attachments: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' } }],
      resyncPeriodSeconds: 30,
    },
  });
  t.ok(dc.spec.hooks.sync.webhook.etag, 'an InPlace attachment: ETag on');
  const legacy = controller(labeller, { target, ignoreStatusChanges: false, resyncPeriodSeconds: 5 }) as any;
  t.notOk(
    'ignoreStatusChanges' in legacy.spec.resources[0],
    'a Metacontroller without the field (v1.5) is not sent it',
  );
  t.equal(legacy.spec.resyncPeriodSeconds, 5);
  const files = renderManifests([labeller]);
  t.equal(
    files.get('toy/labeller.yaml'),
    '# Generated by `npm run manifests` from the TypeBox schemas in hooks/. Do not edit by hand.\n# A note\n# over two lines\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
  );
  const kustomization = YAML.parse(files.get('kustomization.yaml')!);
  t.same(
    kustomization.resources.slice(-2),
    ['toy/labeller.yaml', 'controllers/metaops-labeller.yaml'],
    'shipped before the controllers',
  );
  t.match(files.get('controllers/metaops-labeller.yaml'), /# a note per pod\n/, 'each rule says why');
});
