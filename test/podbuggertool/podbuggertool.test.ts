// PodBuggerTool's injector (hooks/podbuggertool/inject.ts): a DecoratorController hook on pods, one pod per request,
// the tools of its namespace as related objects. What it adds and to which pods, what it never does whatever a
// request says (the deputy's safety: the pod and the tool read again, preconditions, the policy, excluded
// namespaces, the deadline), the pods it skips, the failures it records and tells, and the upgrade from the
// CompositeController that injected before.
import { createHash } from 'node:crypto';
import t from 'tap';
import YAML from 'yaml';
import { operators as hooks } from '../../main/operators.js';
import { podbuggertool, podbuggertoolInjector } from '../../hooks/podbuggertool/index.js';
import { customizeInjector, toolSettings, WORK_BUDGET_MS, wantedBy } from '../../hooks/podbuggertool/inject.js';
import { countKeyFrom, recordKeyFrom } from '../../hooks/podbuggertool/seal.js';
import {
  containerName,
  DEFAULT_POLICY,
  FAILURES_ANNOTATION,
  policyFromEnv,
  type DebugPolicy,
} from '../../hooks/podbuggertool/match.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { KubeError } from '../../lib/kube.js';
import { renderManifests } from '../../scripts/render-manifests.js';
import {
  ANY,
  copy,
  FakeApi,
  inject,
  injectAll,
  injectAndApply,
  injectorRequest,
  Log,
  pod,
  status,
  tool,
} from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);
/** A failure record as the injector writes it: the reason, the attempts in a row, when the last began, a key. */
const record = (container: string, reason: string, attempts = 1, after = 0) =>
  new RegExp(
    `^\\{"${container}":"${reason};n=${attempts};at=${Math.floor(FIXED_NOW.getTime() / 1000) + after};k=[0-9a-f]{8}"\\}$`,
  );

t.test(
  'the injector is a DecoratorController on pods; the tools have a CompositeController without pods',
  async (t) => {
    const injector = YAML.parse(renderManifests().get('controllers/metaops-podbuggertool-injector.yaml')!);
    t.match(injector, {
      kind: 'DecoratorController',
      metadata: { name: 'metaops-podbuggertool-injector' },
      spec: { resources: [{ apiVersion: 'v1', resource: 'pods', ignoreStatusChanges: true }], attachments: [] },
    });
    t.equal(
      injector.spec.resources[0].labelSelector,
      undefined,
      'every pod: which a tool selects is the hook’s to say',
    );
    t.equal(injector.spec.hooks.sync.webhook.path, '/hooks/podbuggertool-injector/sync');
    t.equal(injector.spec.hooks.customize.webhook.path, '/hooks/podbuggertool-injector/customize');
    t.notOk(injector.spec.resyncPeriodSeconds, 'no periodic call about every pod of the cluster');
    const tools = YAML.parse(renderManifests().get('controllers/metaops-podbuggertool.yaml')!);
    t.match(tools, {
      kind: 'CompositeController',
      // The name of the CompositeController that injected before: `kubectl apply -k manifests/` updates it in place.
      metadata: { name: 'metaops-podbuggertool' },
      spec: {
        parentResource: { apiVersion: 'debug.metaops.dev/v1alpha1', resource: 'podbuggertools' },
        childResources: [],
        resyncPeriodSeconds: 60,
      },
    });
    t.equal(tools.spec.hooks.customize, undefined, 'no related pods: a request is the tool alone');
    for (const def of [podbuggertool, podbuggertoolInjector]) {
      t.equal(def.effects, true, `${def.name} acts (PATCH, reads, reviews): authenticated callers only`);
      t.ok(hooks.includes(def), `${def.name} is served`);
    }
    // The same rule for every pod: Metacontroller lists the tools of the pod's own namespace.
    for (const object of [pod('p', {}, {}, 'team-a'), pod('q', {}, {}, 'dbg'), undefined])
      t.same(customizeInjector({ controller: {}, ...(object ? { object } : {}) }), {
        relatedResources: [{ apiVersion: 'debug.metaops.dev/v1alpha1', resource: 'podbuggertools' }],
      });
    const env = { METAOPS_DEBUG_IMAGE_ALLOWLIST: 'docker.io/library/busybox' };
    t.same(toolSettings({ env }), {
      policy: policyFromEnv(env),
      workBudgetMs: WORK_BUDGET_MS,
      countKey: countKeyFrom(env),
      bodyLimit: DEFAULT_BODY_LIMIT,
      recordKey: recordKeyFrom(env),
    });
    t.equal(WORK_BUDGET_MS, 3500);
  },
);

t.test('one pod per request: the containers of the tools that select it, once, with preconditions', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(
      tool('b', {
        selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] },
        image: 'alpine',
      }),
    )
    .put(pod('web-1', { app: 'web' }))
    .put(pod('db-1', { app: 'db' }))
    .put(pod('web-x', { app: 'web' }, {}, 'elsewhere'));
  const rv1 = api.stored('Pod', 'dbg', 'web-1').metadata.resourceVersion;
  const first = await injectAndApply(api, ['dbg', 'web-1']);
  t.same(first, { attachments: [], resyncAfterSeconds: 1 }, 'one container per call; the next a second later');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a']);
  const rv2 = api.stored('Pod', 'dbg', 'web-1').metadata.resourceVersion;
  t.not(rv2, rv1);
  const second = await injectAndApply(api, ['dbg', 'web-1']);
  t.same(second, { attachments: [] });
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a', 'debug-b']);
  t.same(
    api.patches.map((p) => p.precondition),
    [
      { uid: 'uid-web-1', resourceVersion: rv1 },
      { uid: 'uid-web-1', resourceVersion: rv2 },
    ],
    'each PATCH only for the pod as it was read: its uid and resourceVersion',
  );
  t.match(api.patches[0]!.containers, [{ name: 'debug-a', image: 'busybox', stdin: true, tty: true }]);
  t.equal(api.patches[0]!.containers[0].securityContext, undefined, 'the default profile adds no capability');

  // Pods no tool selects: answered from the request alone.
  const calls = api.gets.length;
  t.same(await injectAndApply(api, ['dbg', 'db-1']), { attachments: [] });
  t.same(await injectAndApply(api, ['elsewhere', 'web-x']), { attachments: [] }, 'no tool in its namespace');
  t.equal(api.gets.length, calls, 'no read');
  t.same(api.ephemeralNames('dbg', 'db-1'), []);
  t.same(api.ephemeralNames('elsewhere', 'web-x'), []);

  // At rest: the same answer whatever the time, and no API call at all.
  for (let i = 0; i < 3; i++) {
    t.same(await inject(api, ['dbg', 'web-1'], { now: later(60 * (i + 1)) }), { attachments: [] }, 'quiet');
  }
  t.equal(api.patches.length, 2, 'no second PATCH');
  t.equal(api.gets.length, calls, 'no read');
  t.equal(api.reviews.length, 2, 'the author is asked about before each PATCH (these calls share no memory)');
});

t.test('a pod no tool selects costs no API call, whatever its namespace holds', async (t) => {
  const api = new FakeApi();
  for (let i = 0; i < 50; i++) api.put(pod(`p${i}`, { app: 'web', n: String(i) }));
  api.put(tool('other', { label: 'app=db', image: 'busybox' }));
  api.put(tool('invalid', { image: 'busybox' }));
  api.put(tool('refused', { label: 'app=web', image: 'evil.example/x' }));
  const dying = tool('dying', { label: 'app=web', image: 'busybox' });
  dying.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  api.put(dying);
  for (let i = 0; i < 50; i++) {
    t.same(await inject(api, ['dbg', `p${i}`], { policy: DEFAULT_POLICY }), { attachments: [] });
  }
  t.equal(api.gets.length + api.lists.length + api.reviews.length + api.patches.length, 0, 'not one call');
});

t.test('hostile related objects: a tool of another namespace, a tool whose request lies, a ghost', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox:1.36' }))
    .put(pod('web-1', { app: 'web' }));
  // A tool of another namespace in the request (Metacontroller v4 can list across namespaces): not this pod's.
  const foreign = tool('x', { label: 'app=web', image: 'busybox' }, 'elsewhere');
  const r0 = await inject(api, ['dbg', 'web-1'], {}, injectorRequest(api, 'dbg', 'web-1', [foreign]));
  t.same(r0, { attachments: [] });
  t.equal(api.gets.length, 0);

  // The request claims a privileged tool with another image and command: the API server's tool is what is added.
  const lie = tool('a', {
    label: 'app=web',
    image: 'evil.example/rootkit',
    securityProfile: 'sysadmin',
    command: ['pwn'],
  });
  const policy: DebugPolicy = { ...ANY, profiles: ['baseline', 'sysadmin'] };
  await inject(api, ['dbg', 'web-1'], { policy }, injectorRequest(api, 'dbg', 'web-1', [lie]));
  t.equal(api.patches.length, 1);
  const c = api.patches[0]!.containers[0];
  t.equal(c.image, 'docker.io/library/busybox:1.36', "the API server's image, named in full");
  t.equal(c.securityContext, undefined, "the API server's profile");
  t.notOk('command' in c);
  t.ok(api.gets.includes('debug.metaops.dev/v1alpha1 podbuggertools dbg/a'));
  t.ok(api.gets.includes('v1 pods dbg/web-1'));

  // A tool that exists only in the request: nothing.
  const none = new FakeApi().put(pod('web-1', { app: 'web' }));
  const ghost = await inject(
    none,
    ['dbg', 'web-1'],
    {},
    injectorRequest(none, 'dbg', 'web-1', [tool('ghost', { label: 'app=web', image: 'busybox' })]),
  );
  t.equal(none.patches.length, 0);
  t.same(ghost, { attachments: [] }, 'no failure recorded');

  // Another tool of the same name now (another uid): nothing; the next call is about it.
  const recreated = new FakeApi()
    .put({
      ...tool('a', { label: 'app=web', image: 'busybox' }),
      metadata: { name: 'a', namespace: 'dbg', uid: 'other' },
    })
    .put(pod('web-1', { app: 'web' }));
  await inject(
    recreated,
    ['dbg', 'web-1'],
    {},
    injectorRequest(recreated, 'dbg', 'web-1', [tool('a', { label: 'app=web', image: 'busybox' })]),
  );
  t.equal(recreated.patches.length, 0);

  // The API server's tool selects other pods, is being deleted, or asks for a refused image: nothing.
  for (const [why, stored] of [
    ['selects others', tool('a', { label: 'app=db', image: 'busybox' })],
    [
      'being deleted',
      {
        ...tool('a', { label: 'app=web', image: 'busybox' }),
        metadata: { ...tool('a', {}).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
      },
    ],
    ['refused image', tool('a', { label: 'app=web', image: 'busybox.evil.example/pwn' })],
    ['invalid now', tool('a', { image: 'busybox' })],
  ] as const) {
    const api2 = new FakeApi().put(stored).put(pod('web-1', { app: 'web' }));
    const res = await inject(
      api2,
      ['dbg', 'web-1'],
      { policy: { ...DEFAULT_POLICY, allowlist: ['busybox'] } },
      injectorRequest(api2, 'dbg', 'web-1', [tool('a', { label: 'app=web', image: 'busybox' })]),
    );
    t.equal(api2.patches.length, 0, why);
    t.same(res, { attachments: [] }, `${why}: nothing recorded`);
  }
  // The request's tool is being deleted: nothing is even read.
  const leaving = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }));
  await inject(
    leaving,
    ['dbg', 'web-1'],
    {},
    injectorRequest(leaving, 'dbg', 'web-1', [
      {
        ...tool('a', { label: 'app=web', image: 'busybox' }),
        metadata: { ...tool('a', {}).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
      },
    ]),
  );
  t.equal(leaving.patches.length + leaving.gets.length, 0);
});

t.test('a pod relabelled, deleted, replaced or changed between the request and the PATCH', async (t) => {
  const make = () =>
    new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  // Relabelled out of the selector since the request: nothing.
  const relabelled = make();
  const request = injectorRequest(relabelled, 'dbg', 'web-1');
  relabelled.put({ ...pod('web-1', { app: 'db' }) });
  t.same(await inject(relabelled, ['dbg', 'web-1'], {}, request), { attachments: [] });
  t.equal(relabelled.patches.length, 0);
  // Being deleted now: nothing.
  const dying = make();
  const r2 = injectorRequest(dying, 'dbg', 'web-1');
  dying.put({
    ...pod('web-1', { app: 'web' }),
    metadata: { ...pod('web-1', {}).metadata, labels: { app: 'web' }, deletionTimestamp: '2026-01-01T00:00:00Z' },
  });
  await inject(dying, ['dbg', 'web-1'], {}, r2);
  t.equal(dying.patches.length, 0);
  // Gone: nothing, nothing recorded.
  const gone = make();
  const r3 = injectorRequest(gone, 'dbg', 'web-1');
  gone.remove('Pod', 'dbg', 'web-1');
  t.same(await inject(gone, ['dbg', 'web-1'], {}, r3), { attachments: [] });
  t.equal(gone.patches.length, 0);
  // Another pod under the name now, which the tool selects: it is that pod that is patched, with its own uid.
  const replaced = make();
  const r4 = injectorRequest(replaced, 'dbg', 'web-1');
  replaced.put({
    ...pod('web-1', { app: 'web' }),
    metadata: { ...pod('web-1', { app: 'web' }).metadata, uid: 'uid-new' },
  });
  await inject(replaced, ['dbg', 'web-1'], {}, r4);
  t.same(
    replaced.patches.map((p) => p.precondition?.uid),
    ['uid-new'],
  );
  // Read back from another namespace (a wrong answer): nothing.
  const moved = make();
  const r5 = injectorRequest(moved, 'dbg', 'web-1');
  const get = moved.get.bind(moved);
  moved.get = async (...args) => {
    const obj = await get(...args);
    if (obj && args[1] === 'pods') obj.metadata.namespace = 'elsewhere';
    return obj;
  };
  await inject(moved, ['dbg', 'web-1'], {}, r5);
  t.equal(moved.patches.length, 0);
  // Changed between the GET and the PATCH: the precondition holds the PATCH back; read again a second later, no
  // failure recorded.
  const raced = make();
  const read = raced.get.bind(raced);
  raced.get = async (...args) => {
    const obj = await read(...args);
    if (args[1] === 'pods') raced.put(raced.stored('Pod', 'dbg', 'web-1'));
    return obj;
  };
  const r6 = await inject(raced, ['dbg', 'web-1']);
  t.same(raced.ephemeralNames('dbg', 'web-1'), [], 'the precondition held the PATCH back');
  t.same(r6, { attachments: [], resyncAfterSeconds: 1 });
  t.equal(raced.events.length, 0);
});

t.test('inject once: a request that lags behind the API server adds nothing twice', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const lagging = injectorRequest(api, 'dbg', 'web-1');
  await inject(api, ['dbg', 'web-1'], {}, copy(lagging));
  t.equal(api.patches.length, 1);
  // Metacontroller's next request still carries the pod as it was before the PATCH.
  for (let i = 0; i < 3; i++) t.same(await inject(api, ['dbg', 'web-1'], {}, copy(lagging)), { attachments: [] });
  t.equal(api.patches.length, 1, 'the re-read pod has the container: no second PATCH');
  // A container of that name added by hand, with another image: kept, nothing asked.
  const byHand = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'alpine' }] }));
  t.same(await inject(byHand, ['dbg', 'p']), { attachments: [] });
  t.equal(byHand.patches.length + byHand.gets.length, 0);
  // Another tool's container on the pod does not count.
  const other = new FakeApi()
    .put(tool('b', { label: 'app=web', image: 'busybox' }))
    .put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] }));
  await inject(other, ['dbg', 'p']);
  t.same(
    other.patches.map((p) => p.containers.map((c) => c.name)),
    [['debug-b']],
  );
});

t.test('the server policy: excluded namespaces, profiles and images inject nothing and call nothing', async (t) => {
  const excluded = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'kube-system'))
    .put(pod('dns', { app: 'web' }, {}, 'kube-system'));
  t.same(await inject(excluded, ['kube-system', 'dns'], { policy: { ...ANY, excludedNamespaces: ['kube-system'] } }), {
    attachments: [],
  });
  t.equal(excluded.gets.length + excluded.patches.length, 0, 'not even a read');
  // Not even an annotation of ours removed (one recorded before the namespace was excluded stays).
  excluded.annotate('kube-system', 'dns', { [FAILURES_ANNOTATION]: '{"debug-a":"Forbidden"}' });
  t.same(await inject(excluded, ['kube-system', 'dns'], { policy: { ...ANY, excludedNamespaces: ['kube-system'] } }), {
    attachments: [],
  });
  const custom = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  await inject(custom, ['dbg', 'web-1'], { policy: { ...ANY, excludedNamespaces: ['kube-system', 'dbg'] } });
  t.equal(custom.patches.length, 0);
  await inject(custom, ['dbg', 'web-1'], { policy: { ...ANY, excludedNamespaces: [] } });
  t.equal(custom.patches.length, 1, 'the same pod outside the exclusion is injected');

  for (const profile of ['general', 'netadmin', 'sysadmin']) {
    const api = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox', securityProfile: profile }))
      .put(pod('web-1', { app: 'web' }));
    await inject(api, ['dbg', 'web-1'], { policy: DEFAULT_POLICY });
    t.equal(api.patches.length + api.gets.length, 0, `${profile} refused by default`);
    await inject(api, ['dbg', 'web-1'], {
      policy: { ...DEFAULT_POLICY, profiles: [...DEFAULT_POLICY.profiles, profile as 'general'] },
    });
    t.equal(api.patches.length, 1, `${profile} when the administrator enables it`);
    t.ok(api.patches[0]!.containers[0].securityContext, `${profile}: its security context`);
  }
  const evil = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox.evil.example/pwn' }))
    .put(pod('web-1', { app: 'web' }));
  await inject(evil, ['dbg', 'web-1'], { policy: { ...DEFAULT_POLICY, allowlist: ['busybox*'] } });
  t.equal(evil.patches.length + evil.gets.length, 0);
});

t.test('pods that cannot take the container are skipped without a call: completed, no target, root', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(tool('t', { label: 'app=web', image: 'busybox', targetContainerName: 'db' }))
    .put(tool('r', { label: 'app=web', image: 'busybox', securityProfile: 'restricted' }));
  api.put({ ...pod('done', { app: 'web' }), status: { phase: 'Succeeded' } });
  api.put({ ...pod('crashed', { app: 'web' }), status: { phase: 'Failed' } });
  for (const name of ['done', 'crashed']) {
    t.same(await inject(api, ['dbg', name]), { attachments: [] }, `${name}: a completed pod`);
  }
  t.equal(api.gets.length, 0);
  api.put(pod('web', { app: 'web' }));
  await injectAll(api, 'dbg');
  await injectAll(api, 'dbg');
  t.same(
    api.ephemeralNames('dbg', 'web'),
    ['debug-a'],
    'neither the tool without its target nor the restricted one as root',
  );
  t.same(api.ephemeralNames('dbg', 'done'), []);

  // The target there, or a non-root user given: added, sharing the target's processes, as that user.
  const ok = new FakeApi()
    .put(tool('t', { label: 'app=web', image: 'busybox', targetContainerName: 'db' }))
    .put(tool('r', { label: 'app=web', image: 'busybox', securityProfile: 'restricted', runAsUser: 65534 }))
    .put(pod('web', { app: 'web' }, { containers: [{ name: 'app' }, { name: 'db' }] }))
    .put(pod('mine', { app: 'web' }, { securityContext: { runAsUser: 1000 } }));
  await injectAll(ok, 'dbg');
  await injectAll(ok, 'dbg');
  t.same(ok.ephemeralNames('dbg', 'web').sort(), ['debug-r', 'debug-t']);
  t.same(ok.ephemeralNames('dbg', 'mine'), ['debug-r'], "the pod's own non-root user");
  const restricted = ok.patches.find((p) => p.containers[0].name === 'debug-r')!.containers[0];
  t.match(restricted.securityContext, { runAsNonRoot: true, runAsUser: 65534, capabilities: { drop: ['ALL'] } });
  t.equal(ok.patches.find((p) => p.containers[0].name === 'debug-t')!.containers[0].targetContainerName, 'db');
});

t.test('a failed PATCH: recorded on the pod with a stable reason, logged, told once, retried', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(
    403,
    'PATCH /api/v1/...: 403 pods "web-1" is forbidden: User "x" cannot patch',
    'Forbidden',
  );
  const log = new Log();
  const failed = await injectAndApply(api, ['dbg', 'web-1'], { log });
  t.same(Object.keys(failed).sort(), ['annotations', 'attachments', 'resyncAfterSeconds']);
  t.match(failed, {
    attachments: [],
    annotations: { [FAILURES_ANNOTATION]: record('debug-a', 'Forbidden') },
    resyncAfterSeconds: 30,
  });
  t.match(api.stored('Pod', 'dbg', 'web-1').metadata.annotations[FAILURES_ANNOTATION], record('debug-a', 'Forbidden'));
  t.equal(log.lines.length, 1);
  t.equal(log.lines[0]!.msg, 'PodBuggerTool dbg/a: could not add debug-a to pod dbg/web-1: Forbidden');
  t.match(log.lines[0]!.obj, { podbuggertool: 'dbg/a', pod: 'dbg/web-1', reason: 'Forbidden', err: /forbidden/ });
  t.equal(api.events.length, 1);
  t.match(api.events[0], {
    namespace: 'dbg',
    name: /^a\.[0-9a-f]{16}$/,
    type: 'Warning',
    reason: 'InjectionFailed',
    action: 'AddEphemeralContainer',
    note: /^could not add debug-a to pod dbg\/web-1 \(the first of these ten minutes\): Forbidden; one Event per reason every 10 minutes/,
    regarding: {
      apiVersion: 'debug.metaops.dev/v1alpha1',
      kind: 'PodBuggerTool',
      namespace: 'dbg',
      name: 'a',
      uid: 'uid-tool-a',
    },
    related: { apiVersion: 'v1', kind: 'Pod', namespace: 'dbg', name: 'web-1', uid: 'uid-web-1' },
  });
  t.equal(api.events[0]!.eventTime.toISOString(), FIXED_NOW.toISOString());

  // Before its time, no API call and no write; the resync asked again for when it is due (a Metacontroller restarted
  // since forgot the one the failed attempt asked for).
  const calls = api.gets.length;
  t.same(await injectAndApply(api, ['dbg', 'web-1'], { log, now: later(20) }), {
    attachments: [],
    resyncAfterSeconds: 10,
  });
  t.equal(api.gets.length, calls, 'no read before the retry is due');
  // The same failure again, when due: the record counts it and the next retry waits twice as long; no second event.
  api.failPatch = new KubeError(403, 'another text entirely', 'Forbidden');
  t.match(await injectAndApply(api, ['dbg', 'web-1'], { log, now: later(30) }), {
    attachments: [],
    annotations: { [FAILURES_ANNOTATION]: record('debug-a', 'Forbidden', 2, 30) },
    resyncAfterSeconds: 60,
  });
  t.equal(api.events.length, 1, 'one event per failure, not per retry');

  // Unreachable: recorded (a new reason: its retries start afresh), but no event (it could not be written either).
  api.failGet = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
  const unreachable = await injectAndApply(api, ['dbg', 'web-1'], { log, now: later(90) });
  t.match(unreachable.annotations, { [FAILURES_ANNOTATION]: record('debug-a', 'Unreachable', 1, 90) });
  t.equal(unreachable.resyncAfterSeconds, 30);
  t.equal(api.events.length, 1);
  api.failGet = undefined;

  // Another failure: another event, under another name.
  api.failPatch = new KubeError(422, 'invalid', 'Invalid');
  await injectAndApply(api, ['dbg', 'web-1'], { log, now: later(120) });
  t.equal(api.events.length, 2);
  t.match(api.events[1], {
    note: /^could not add debug-a to pod dbg\/web-1 \(the first of these ten minutes\): Invalid;/,
    regarding: { uid: 'uid-tool-a' },
  });
  t.not(api.events[1]!.name, api.events[0]!.name);

  // An event that cannot be recorded is logged; the answer is the same.
  const quiet = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  quiet.failPatch = new KubeError(403, 'x', 'Forbidden');
  quiet.failEvent = new KubeError(403, 'events is forbidden', 'Forbidden');
  const qlog = new Log();
  t.same(await inject(quiet, ['dbg', 'web-1'], { log: qlog }), failed);
  t.match(qlog.lines[1], {
    obj: { podbuggertool: 'dbg/a', reason: 'Forbidden', err: 'events is forbidden' },
    msg: 'PodBuggerTool dbg/a: could not record the event InjectionFailed: Forbidden',
  });
  // An API without events is not asked; one whose write hangs holds the answer about a second.
  const hanging = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }));
  hanging.failPatch = new KubeError(403, 'x', 'Forbidden');
  hanging.createEvent = () => new Promise(() => undefined);
  const began = Date.now();
  t.same(await inject(hanging, ['dbg', 'web-1']), failed);
  t.ok(Date.now() - began < 5000, `answered while the event write hangs (${Date.now() - began} ms)`);

  // It works now: the record is removed.
  api.failPatch = undefined;
  const ok = await injectAndApply(api, ['dbg', 'web-1'], { log, now: later(150) });
  t.same(ok, { attachments: [], annotations: { [FAILURES_ANNOTATION]: null } });
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a']);
  t.equal(api.stored('Pod', 'dbg', 'web-1').metadata.annotations, undefined);
  t.same(await inject(api, ['dbg', 'web-1']), { attachments: [] }, 'and then quiet');
});

t.test('the record keeps only the failures of tools that still want the pod', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.annotate('dbg', 'web-1', { [FAILURES_ANNOTATION]: '{"debug-a":"Forbidden","debug-gone":"Invalid"}', keep: 'me' });
  api.failPatch = new KubeError(403, 'x', 'Forbidden');
  const res = await injectAndApply(api, ['dbg', 'web-1']);
  t.match(res.annotations, { [FAILURES_ANNOTATION]: record('debug-a', 'Forbidden') }, "a deleted tool's failure goes");
  t.equal(api.events.length, 0, 'the failure it had: no new event');
  api.remove('PodBuggerTool', 'dbg', 'a');
  t.same((await injectAndApply(api, ['dbg', 'web-1'])).annotations, { [FAILURES_ANNOTATION]: null });
  t.same(api.stored('Pod', 'dbg', 'web-1').metadata.annotations, { keep: 'me' });
  // A terminating pod is left as it is, record and all.
  const dying = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  dying.put({
    ...pod('p', { app: 'web' }),
    metadata: {
      ...pod('p', { app: 'web' }).metadata,
      deletionTimestamp: '2026-01-01T00:00:00Z',
      annotations: { [FAILURES_ANNOTATION]: '{"debug-x":"Invalid"}' },
    },
  });
  t.same(await inject(dying, ['dbg', 'p']), { attachments: [] });
  t.equal(dying.gets.length, 0);
});

t.test('several tools: one PATCH per call, those that failed before last, the rest a second later', async (t) => {
  const api = new FakeApi();
  for (const n of ['c', 'b', 'a']) api.put(tool(n, { label: 'app=web', image: 'busybox' }));
  api.put(pod('web-1', { app: 'web' }));
  api.annotate('dbg', 'web-1', { [FAILURES_ANNOTATION]: '{"debug-a":"Invalid"}' });
  t.same(
    wantedBy(
      api.stored('Pod', 'dbg', 'web-1'),
      ['a', 'b', 'c'].map((n) => ({
        name: n,
        uid: undefined,
        spec: { label: 'app=web', image: 'busybox', securityProfile: 'baseline' } as never,
      })),
      ANY,
    ).map((x) => x.name),
    ['b', 'c', 'a'],
  );
  const names: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await injectAndApply(api, ['dbg', 'web-1']);
    names.push(...api.patches.slice(-1).map((p) => p.containers[0].name));
    t.equal(res.resyncAfterSeconds, i < 2 ? 1 : undefined);
  }
  t.same(names, ['debug-b', 'debug-c', 'debug-a']);
  t.equal(api.stored('Pod', 'dbg', 'web-1').metadata.annotations, undefined, 'the failure cleared once it worked');
});

t.test('the deadline and the work budget: no call starts after either, the rest a second later', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  // Out of time: recorded on the pod (OutOfTime, the first of a backoff from 1 s), no event (no API call).
  const outOfTime = {
    attachments: [],
    annotations: { [FAILURES_ANNOTATION]: record('debug-a', 'OutOfTime') },
    resyncAfterSeconds: 1,
  };
  t.match(await inject(api, ['dbg', 'web-1'], { budgetMs: -1 }), outOfTime);
  t.equal(api.gets.length + api.patches.length, 0);
  // Past the route's deadline (the caller was answered 429 already): left for the next call, a second later. (The
  // record answered above was not written, the pod as it was: that record is answered again, UnwrittenRecords.)
  const aborted = new AbortController();
  aborted.abort(new Error('deadline'));
  const left = await inject(api, ['dbg', 'web-1'], { signal: aborted.signal });
  t.match(left, outOfTime);
  t.same(Object.keys(left).sort(), ['annotations', 'attachments', 'resyncAfterSeconds']);
  t.equal(api.gets.length + api.patches.length + api.events.length, 0);
  // The deadline passes while the pod and the tool are read: no PATCH after it.
  const slow = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const deadline = new AbortController();
  const read = slow.get.bind(slow);
  slow.get = async (...args) => {
    const obj = await read(...args);
    deadline.abort(new Error('deadline'));
    return obj;
  };
  const res = await inject(slow, ['dbg', 'web-1'], { signal: deadline.signal });
  t.equal(slow.patches.length, 0, 'nothing patched after the deadline');
  t.same(res, { attachments: [], resyncAfterSeconds: 1 });
});

t.test('tools and pods named constructor, __proto__ or toString, and label keys of the same names, work', async (t) => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
  const api = new FakeApi();
  for (const n of names) api.put(tool(n, { label: 'constructor=yes', image: 'busybox' }));
  for (const n of names) api.put(pod(n, { constructor: 'yes', toString: 'x' }));
  api.put(pod('plain', { app: 'web' }));
  for (let i = 0; i < names.length + 1; i++) await injectAll(api, 'dbg');
  for (const n of names) t.same(api.ephemeralNames('dbg', n).sort(), names.map(containerName).sort(), n);
  t.same(api.ephemeralNames('dbg', 'plain'), [], 'a pod without the label is not selected');
  const patches = api.patches.length;
  await injectAll(api, 'dbg');
  t.equal(api.patches.length, patches, 'then quiet');
});

t.test('the upgrade from the CompositeController: injected containers are left as they are, and counted', async (t) => {
  // The state the CompositeController version left: the pods it injected carry `debug-<tool>` (the same name), one
  // with the tool's older image; the tool's status has the old fields (lastInjected, failures of the old reasons).
  const api = new FakeApi().put({
    ...tool('a', { label: 'app=web', image: 'busybox:1.37' }),
    status: {
      matched: 3,
      injected: 2,
      outdated: 0,
      failed: 1,
      failures: [{ pod: 'web-3', reason: 'Forbidden' }],
      lastInjected: ['web-1', 'web-2'],
      containerName: 'debug-a',
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'InjectionFailed',
          message: 'old',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  });
  api.put(
    pod('web-1', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.37', stdin: true }] }),
  );
  api.put(pod('web-2', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.36' }] }));
  api.put(pod('web-3', { app: 'web' }));
  const before = structuredClone([api.stored('Pod', 'dbg', 'web-1').spec, api.stored('Pod', 'dbg', 'web-2').spec]);
  for (const name of ['web-1', 'web-2'])
    t.same(await injectAndApply(api, ['dbg', name]), { attachments: [] }, `${name}: nothing to do`);
  t.equal(api.gets.length, 0, 'not even read');
  t.same([api.stored('Pod', 'dbg', 'web-1').spec, api.stored('Pod', 'dbg', 'web-2').spec], before, 'left as they are');
  await injectAndApply(api, ['dbg', 'web-3']);
  t.same(
    api.patches.map((p) => p.pod),
    ['web-3'],
    'only the pod the old version could not inject',
  );
  const res = await status(api, ['dbg', 'a']);
  t.match(res.status, {
    matched: 3,
    injected: 2,
    outdated: 1,
    pending: 0,
    failed: 0,
    failures: [],
    skips: [],
    containerName: 'debug-a',
  });
  t.notOk('lastInjected' in (res.status as object), 'the old field is no longer written');
  // Not done while a pod carries the earlier spec's container (the docs' Ready table: every matching pod carries the
  // container the spec adds): Outdated, saying to delete that pod.
  t.match((res.status as any).conditions[0], {
    status: 'False',
    reason: 'Outdated',
    message: /1 carry it as an earlier/,
  });
});

t.test("an Event's name: at most 200 characters of the tool's name, and a hash of the occurrence", async (t) => {
  const hash = (occurrence: string) => createHash('sha256').update(occurrence).digest('hex').slice(0, 16);
  for (const [toolName, prefix] of [
    ['a', 'a.'],
    ['x'.repeat(250), `${'x'.repeat(200)}.`],
  ] as const) {
    const api = new FakeApi().put(tool(toolName, { label: 'app=web', image: 'busybox' }));
    const bare = pod('p1', { app: 'web' });
    delete bare.metadata.uid;
    api.put(bare);
    api.failPatch = new KubeError(403, 'no', 'Forbidden');
    await inject(api, ['dbg', 'p1']);
    // The occurrence: the tool (namespace, name, uid) and the reason, in a ten-minute bucket; no pod in it, so a
    // tool failing for one reason on many pods is one Event.
    const bucket = Math.floor(FIXED_NOW.getTime() / 600_000);
    t.equal(
      api.events[0]!.name,
      `${prefix}${hash(JSON.stringify(['dbg', toolName, `uid-tool-${toolName}`, 'Forbidden', bucket]))}`,
    );
    t.equal(api.events[0]!.related!.uid, undefined, 'a pod without a UID is related without one');
  }
});

t.test('the request through the app: related tools of other namespaces never reach the hook', async (t) => {
  const { buildApp } = await import('../../lib/app.js');
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const app = buildApp({
    operators: hooks,
    auth: { bearer: 'token-0123456789abcdef' },
    services: { kube: () => api, now: () => FIXED_NOW },
    settings: { 'podbuggertool-injector': { policy: ANY } },
  });
  t.teardown(() => app.close());
  const body = injectorRequest(api, 'dbg', 'web-1', [tool('b', { label: 'app=web', image: 'busybox' }, 'elsewhere')]);
  const headers = { authorization: 'Bearer token-0123456789abcdef' };
  const res = await app.inject({ method: 'POST', url: '/hooks/podbuggertool-injector/sync', payload: body, headers });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { attachments: [] });
  t.equal(api.gets.length, 0);
  const stranger = await app.inject({
    method: 'POST',
    url: '/hooks/podbuggertool-injector/sync',
    payload: injectorRequest(api, 'dbg', 'web-1'),
  });
  t.equal(stranger.statusCode, 401, 'an unauthenticated caller acts on nothing');
  t.equal(api.patches.length, 0);
  const ok = await app.inject({
    method: 'POST',
    url: '/hooks/podbuggertool-injector/sync',
    payload: injectorRequest(api, 'dbg', 'web-1'),
    headers,
  });
  t.equal(ok.statusCode, 200);
  t.equal(api.patches.length, 1);
  const customize = await app.inject({
    method: 'POST',
    url: '/hooks/podbuggertool-injector/customize',
    payload: { controller: {}, object: pod('x', {}) },
    headers,
  });
  t.same(
    customize.json(),
    { relatedResources: [{ apiVersion: 'debug.metaops.dev/v1alpha1', resource: 'podbuggertools' }] },
    'customize names the tools of the pod’s namespace',
  );
  t.equal(
    (await app.inject({ method: 'POST', url: '/hooks/podbuggertool/customize', payload: {} })).statusCode,
    404,
    "the tool's controller asks for no pods",
  );
});
