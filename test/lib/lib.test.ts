import t from 'tap';
import { buildConditions, rfc3339 } from '../../lib/conditions.js';
import fc from 'fast-check';
import { jsonDepthExceeds, MAX_JSON_DEPTH, parseJsonBody } from '../../lib/json.js';
import { labelValue, matchesSelector } from '../../lib/labels.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { byCodeUnits, dns1035Problem } from '../../lib/names.js';
import {
  allObserved,
  compareObjects,
  confineRelated,
  isPodReady,
  keepObserved,
  LAST_APPLIED,
  observed,
  observedNamed,
  observedUnordered,
  statusNumber,
} from '../../lib/objects.js';
import { objectMap } from '../fixtures/requests.js';

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', labels: { a: 'b' } },
  spec: { replicas: 2 },
};

t.test('keepObserved returns what Metacontroller last applied', async (t) => {
  const observed = {
    ...structuredClone(deployment),
    metadata: {
      ...deployment.metadata,
      uid: 'u',
      resourceVersion: '7',
      annotations: { [LAST_APPLIED]: JSON.stringify(deployment), other: 'x' },
    },
    spec: { replicas: 2, revisionHistoryLimit: 10 },
    status: { replicas: 2 },
  };
  t.same(keepObserved(observed), deployment);
});

t.test('keepObserved without the annotation strips server fields and status', async (t) => {
  const observed = {
    ...structuredClone(deployment),
    metadata: {
      ...deployment.metadata,
      uid: 'u',
      resourceVersion: '7',
      generation: 3,
      creationTimestamp: 'then',
      managedFields: [],
      ownerReferences: [],
      annotations: { [LAST_APPLIED]: '{not json' },
    },
    status: { replicas: 2 },
  };
  t.same(keepObserved(observed), deployment);
});

t.test('observed maps are read by value, whatever their keys', async (t) => {
  for (const keying of ['v1', 'v2'] as const) {
    const map = objectMap([deployment, { ...deployment, metadata: { name: 'api', namespace: 'ns' } }], keying);
    t.equal(observedNamed(map, 'Deployment', 'apps/v1', 'web')?.metadata.name, 'web');
    t.equal(observedNamed(map, 'Deployment', 'apps/v1', 'nope'), undefined);
    t.same(
      allObserved(map).map((o) => o.metadata.name),
      ['api', 'web'],
    );
  }
  t.same(allObserved(undefined), []);
});

t.test('label selectors as Kubernetes defines them', async (t) => {
  const labels = { app: 'web', tier: 'front' };
  t.ok(matchesSelector(labels, { matchLabels: { app: 'web' } }));
  t.notOk(matchesSelector(labels, { matchLabels: { app: 'api' } }));
  t.ok(matchesSelector(labels, { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }));
  t.notOk(matchesSelector(labels, { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }));
  t.ok(matchesSelector(labels, { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }));
  t.notOk(matchesSelector(labels, { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }));
  t.ok(matchesSelector(labels, { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }));
  t.notOk(matchesSelector(undefined, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }));
  t.ok(matchesSelector(undefined, {}), 'an empty selector matches everything');
});

t.test('label values and Service names', async (t) => {
  t.equal(labelValue('mysql:8.0'), 'mysql-8.0');
  t.equal(labelValue('-x-'), 'x');
  t.equal(labelValue('8.0'), '8.0', 'a valid value as it is');
  t.equal(labelValue(''), '');
  t.equal(labelValue('a'.repeat(80)).length, 63);
  t.equal(dns1035Problem('web'), undefined);
  t.match(dns1035Problem('1web'), /start with a letter/);
  t.match(dns1035Problem('Web'), /lower-case/);
  t.match(dns1035Problem('a'.repeat(60), '-headless'), /at most 63/);
});

t.test('conditions keep their transition time while their status holds', async (t) => {
  const t1 = new Date('2026-01-01T00:00:00Z');
  const t2 = new Date('2026-01-01T01:00:00Z');
  const first = buildConditions([{ type: 'Ready', status: false, reason: 'A', message: 'a' }], [], 1, t1);
  const same = buildConditions([{ type: 'Ready', status: false, reason: 'B', message: 'b' }], first, 2, t2);
  t.equal(same[0]!.lastTransitionTime, '2026-01-01T00:00:00Z');
  t.equal(same[0]!.reason, 'B');
  t.equal(same[0]!.observedGeneration, 2);
  const flipped = buildConditions([{ type: 'Ready', status: true, reason: 'C', message: 'c' }], same, 2, t2);
  t.equal(flipped[0]!.lastTransitionTime, '2026-01-01T01:00:00Z');
  const unknown = buildConditions([{ type: 'Ready', status: 'Unknown', reason: 'D', message: 'd' }], [], undefined, t2);
  t.equal(unknown[0]!.status, 'Unknown');
  t.notOk('observedGeneration' in unknown[0]!);
});

t.test('rfc3339 writes metav1.Time: whole seconds, Z', async (t) => {
  t.equal(rfc3339(new Date('2026-01-02T03:04:05.678Z')), '2026-01-02T03:04:05Z');
  const wrong: string[] = [];
  for (let run = 0; run < 1000; run++) {
    const time = new Date(Math.floor(Math.random() * 253402300799999));
    if (rfc3339(time) !== time.toISOString().replace(/\.\d{3}Z$/, 'Z')) wrong.push(time.toISOString());
  }
  t.same(wrong, [], 'the same as cutting the milliseconds off toISOString, for any time up to year 9999');
});

t.test("observedNamed with a namespace finds only that namespace's object, under v1 and v2 keys", async (t) => {
  const secret = (ns: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls', namespace: ns } });
  for (const keying of ['v1', 'v2'] as const) {
    const other = objectMap([secret('other')], keying);
    t.equal(
      observedNamed(other, 'Secret', 'v1', 'tls', 'team'),
      undefined,
      `${keying}: another namespace's Secret is not ours`,
    );
    t.equal(
      observedNamed(other, 'Secret', 'v1', 'tls')?.metadata.namespace,
      'other',
      `${keying}: without a namespace, any`,
    );
    const both = objectMap([secret('other'), secret('team')], 'v2');
    t.equal(observedNamed(both, 'Secret', 'v1', 'tls', 'team')?.metadata.namespace, 'team');
  }
  const proto = objectMap([]);
  proto['Secret.v1'] = {};
  t.equal(observedNamed(proto, 'Secret', 'v1', 'constructor'), undefined, 'no prototype lookups');
  t.equal(observedNamed(proto, 'Secret', 'v1', 'toString', 'team'), undefined);
});

/** The nesting scan, character by character: what jsonDepthExceeds must agree with. */
function depthExceedsByChar(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '"') break;
      }
    } else if (c === '{' || c === '[') {
      if (++depth > limit) return true;
    } else if (c === '}' || c === ']') depth--;
  }
  return false;
}

t.test('jsonDepthExceeds skips strings whole, escaped quotes and backslashes included', async (t) => {
  const nest = (inner: string) => `{"a":[${inner}]}`;
  t.equal(jsonDepthExceeds(nest(nest('1')), 3), true, '4 levels past 3');
  t.equal(jsonDepthExceeds(nest(nest('1')), 4), false);
  t.equal(jsonDepthExceeds(nest('"[[[[[[{{{{"'), 2), false, 'brackets in a string do not count');
  t.equal(jsonDepthExceeds(nest('"\\"[[[[[[\\""'), 2), false, 'an escaped quote does not end the string');
  t.equal(
    jsonDepthExceeds(nest('"\\\\",[[[1]]]'), 2),
    true,
    'an escaped backslash before the quote: the string ends there',
  );
  t.equal(jsonDepthExceeds(nest('"\\\\\\"[[[[["'), 2), false, 'three backslashes: the quote is escaped');
  t.equal(jsonDepthExceeds('[[["unterminated [[[[[[', 3), false, 'an unterminated string ends the scan');
  // Any text at all, JSON or not, with the characters that matter over-represented.
  const texts = fc.oneof(
    fc.json({ maxDepth: 6 }),
    fc.array(fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ',', ':'), { maxLength: 60 }).map((cs) => cs.join('')),
  );
  fc.assert(
    fc.property(
      texts,
      fc.integer({ min: 0, max: 6 }),
      (text, limit) => jsonDepthExceeds(text, limit) === depthExceedsByChar(text, limit),
    ),
    { numRuns: 3000 },
  );
});

t.test('compareObjects: by namespace, then name; a namespace that is not a string sorts as none', async (t) => {
  const o = (namespace: unknown, name: string) =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name } }) as never;
  t.ok(compareObjects(o('a', 'z'), o('b', 'a')) < 0, 'the namespace first');
  t.ok(compareObjects(o('b', 'a'), o('a', 'z')) > 0);
  t.ok(compareObjects(o('a', 'a'), o('a', 'b')) < 0, 'then the name');
  t.equal(compareObjects(o('a', 'a'), o('a', 'a')), 0);
  const odd = JSON.parse('{"toString": 1}');
  t.equal(compareObjects(o(odd, 'x'), o(undefined, 'x')), 0, 'an object namespace is as none');
  t.ok(compareObjects(o(odd, 'x'), o('A', 'x')) < 0, 'so it sorts before every namespace');
  t.ok(compareObjects(o(7, 'x'), o('0', 'x')) < 0);
});

t.test('observed objects: absent maps, order, v2 keys, and readiness and numbers read from odd statuses', async (t) => {
  const pod = (name: string, namespace = 'ns', extra: Record<string, unknown> = {}) =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, ...extra }) as KubeObject;
  t.same(observed(undefined, 'Pod', 'v1'), []);
  t.same(observed(null, 'Pod', 'v1'), []);
  t.same(observedUnordered(null, 'Pod', 'v1'), []);
  t.equal(observedNamed(undefined, 'Pod', 'v1', 'a'), undefined);
  const map = { 'Pod.v1': { 'ns/b': pod('b'), 'ns/a': pod('a'), 'other/a': pod('a', 'other') } } as never;
  t.same(
    observed(map, 'Pod', 'v1').map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
    ['ns/a', 'ns/b', 'other/a'],
    'sorted by namespace, then name',
  );
  t.equal(observedNamed(map, 'Pod', 'v1', 'a', 'other')?.metadata.namespace, 'other', 'v2 key namespace/name');
  t.equal(observedNamed(map, 'Pod', 'v1', 'a', 'ns')?.metadata.namespace, 'ns');
  t.equal(observedNamed(map, 'Pod', 'v1', 'a', 'none'), undefined);
  t.same(
    allObserved({ 'Service.v1': { s: { ...pod('s'), kind: 'Service' } }, 'Pod.v1': { p: pod('p') } } as never).map(
      (o) => o.kind,
    ),
    ['Pod', 'Service'],
    'types in the order of their keys',
  );

  const ready = { type: 'Ready', status: 'True' };
  t.equal(isPodReady(pod('p', 'ns', { status: { phase: 'Running', conditions: [null, 'x', ready] } })), true);
  t.equal(isPodReady(pod('p', 'ns', { status: { phase: 'Pending', conditions: [ready] } })), false);
  t.equal(
    isPodReady(pod('p', 'ns', { status: { phase: 'Running', conditions: [{ type: 'Other', status: 'True' }] } })),
    false,
  );
  t.equal(
    isPodReady(pod('p', 'ns', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } })),
    false,
  );
  t.equal(isPodReady(pod('p', 'ns', { status: 'Running' })), false);
  t.equal(isPodReady(pod('p', 'ns')), false);

  t.equal(statusNumber(pod('p', 'ns', { status: { replicas: 3 } }), 'replicas'), 3);
  t.equal(statusNumber(pod('p', 'ns', { status: { replicas: '3' } }), 'replicas'), 0);
  t.equal(statusNumber(pod('p', 'ns', { status: { replicas: Infinity } }), 'replicas'), 0);
  t.equal(statusNumber(undefined, 'replicas'), 0);
});

t.test('confineRelated: related objects of another namespace are dropped, the rest kept as sent', async (t) => {
  const obj = (name: string, namespace?: unknown) => ({
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  });
  const request = {
    parent: { metadata: { namespace: 'ns' } },
    related: {
      'Secret.v1': { a: obj('a', 'ns'), b: obj('b', 'other'), c: obj('c', ''), d: obj('d'), e: null, f: obj('f', 7) },
    },
  };
  const confined = confineRelated(request);
  t.same(Object.keys(confined.related['Secret.v1']!), ['a', 'c', 'd', 'e', 'f']);
  t.equal(request.related['Secret.v1'].b.metadata.namespace, 'other', 'the request itself is not changed');
  // Nothing foreign: the very same request. No namespace on the parent, or no related: as sent.
  const own = {
    parent: { metadata: { namespace: 'ns' } },
    related: { 'Secret.v1': { a: obj('a', 'ns'), c: obj('c', '') } },
  };
  t.equal(confineRelated(own), own);
  const clusterScoped = { parent: { metadata: {} }, related: request.related };
  t.equal(confineRelated(clusterScoped), clusterScoped);
  const noRelated = { parent: { metadata: { namespace: 'ns' } } };
  t.equal(confineRelated(noRelated), noRelated);
  t.equal(confineRelated({ parent: null, related: request.related }).related, request.related);
});

t.test('keepObserved: the last applied object only when it is this object; otherwise a clean copy', async (t) => {
  const base = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cm',
      namespace: 'ns',
      uid: 'u',
      resourceVersion: '7',
      annotations: {} as Record<string, string>,
    },
    data: { live: 'yes' },
    status: { x: 1 },
  };
  const withApplied = (applied: unknown, more: Record<string, string> = {}) =>
    ({
      ...base,
      metadata: { ...base.metadata, annotations: { [LAST_APPLIED]: JSON.stringify(applied), ...more } },
    }) as unknown as KubeObject;
  const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { live: 'yes' } };
  t.same(keepObserved(withApplied(applied)), applied, 'the last applied object');
  // The annotation is text whoever may edit the object writes: only its shape is kept, with the observed values.
  t.same(
    keepObserved(withApplied({ ...applied, data: { live: 'no', applied: 'yes' } })),
    applied,
    'the observed values in the shape last applied: none the object does not have',
  );
  for (const [label, other] of [
    ['another kind', { ...applied, kind: 'Secret' }],
    ['another name', { ...applied, metadata: { name: 'other' } }],
    ['no metadata', { ...applied, metadata: undefined }],
    ['null', null],
    ['a string', 'cm'],
  ] as const) {
    const kept = keepObserved(withApplied(other, { note: 'n' })) as any;
    t.same(kept.data, { live: 'yes' }, `${label}: the observed object`);
    t.same(kept.metadata.annotations, { note: 'n' }, `${label}: other annotations kept, last-applied dropped`);
    t.notOk(kept.status, `${label}: no status`);
    t.notOk(kept.metadata.uid, `${label}: no server fields`);
  }
  const bare = keepObserved(
    withApplied({ kind: 'Secret' }, { 'kubectl.kubernetes.io/last-applied-configuration': '{}' }),
  ) as any;
  t.notOk('annotations' in bare.metadata, 'no annotation left: none at all');
  t.same(
    keepObserved({ ...base, metadata: { ...base.metadata, annotations: 'x' as never } } as never).metadata.annotations,
    'x',
  );
});

t.test('byCodeUnits: the order of a plain sort, equal names equal', async (t) => {
  t.equal(byCodeUnits('a', 'b'), -1);
  t.equal(byCodeUnits('b', 'a'), 1);
  t.equal(byCodeUnits('a', 'a'), 0);
  t.equal(byCodeUnits('B', 'a'), -1, 'code units, not the locale: upper case first');
  t.equal(byCodeUnits('web-10', 'web-2'), -1, 'strings, not numbers');
  // Long lists in any order (merged runs, not only insertion), against the comparator-less sort.
  for (let run = 0; run < 20; run++) {
    const names = Array.from({ length: 300 }, () =>
      Math.random()
        .toString(36)
        .slice(2, 2 + Math.ceil(Math.random() * 6)),
    );
    t.same([...names].sort(byCodeUnits), [...names].sort());
  }
});

t.test(
  'parseJsonBody: nesting up to the limit parsed, one level more refused; long shallow bodies parsed',
  async (t) => {
    const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    t.equal(MAX_JSON_DEPTH, 1000);
    t.ok(Array.isArray(parseJsonBody(deep(1000))), '1000 levels');
    const refused = (() => {
      try {
        parseJsonBody(deep(1001));
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    t.match(refused, { message: 'request body nests deeper than 1000 levels', statusCode: 400 });
    const long = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ name: `n${i}` })) });
    t.ok(long.length > 20_000);
    t.equal((parseJsonBody(long) as { items: unknown[] }).items.length, 2000);
  },
);

t.test('parseJsonBody: a malformed body is refused with where it went wrong, never with its text', async (t) => {
  const refusal = (text: string) => {
    try {
      parseJsonBody(text);
    } catch (err) {
      return err as Error & { statusCode: number };
    }
    throw new Error('parsed');
  };
  const quoted = refusal('{"password": hunter2}');
  t.equal(quoted.statusCode, 400);
  t.equal(quoted.message, 'Body is not valid JSON', 'the token and the text around it are not quoted');
  t.equal(
    refusal('{"a": 1').message,
    `Body is not valid JSON: ${(() => {
      try {
        JSON.parse('{"a": 1');
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })()}`,
  );
  t.notMatch(refusal('{"a": 1').message, /is not valid JSON$/);
});
