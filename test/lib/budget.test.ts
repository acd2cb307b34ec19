// Bounded work per object: every field a spec copies into children has a bound, in the CRD (maxLength, maxItems,
// maxProperties) and, for free-form objects and maps the CRD cannot bound deeper, in the hook (lib/schemas.ts
// MAX_BYTES, enforced by lib/spec.ts); and every kind states an answer budget (lib/budget.ts), which the largest
// spec its CRD and hook accept stays within. The memory these bounds give is measured by bench/memory.ts
// (docs/operating.md).
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { operators } from '../../main/operators.js';
import { answerBudgetProblem, jsonBytes, MAX_ANSWER_BYTES, namesBytes } from '../../lib/budget.js';
import { crd } from '../../lib/manifests.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import { freeForm, MAX_BYTES, stringMap } from '../../lib/schemas.js';
import { byteBounds, specParser } from '../../lib/spec.js';
import { testApp } from '../fixtures/app.js';
import {
  blob,
  LONGEST_NAMESPACE,
  oversizedParent,
  readyOf,
  syncRequest,
  WORST_SPECS,
  worstAnswer,
  worstParent,
} from '../fixtures/worst.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

const composites = operators.filter((d): d is CompositeHookDefinition => d.type === 'composite');

/** Every place of a schema where a value of unbounded size could sit, by its path. */
function unbounded(schema: Record<string, any>, path: string): string[] {
  if (Array.isArray(schema['anyOf'])) return schema['anyOf'].flatMap((s: any) => unbounded(s, path));
  if ('const' in schema || Array.isArray(schema['enum'])) return [];
  switch (schema['type']) {
    case 'string':
      return typeof schema['maxLength'] === 'number' ? [] : [`${path}: a string without maxLength`];
    case 'integer':
    case 'number':
    case 'boolean':
      return [];
    case 'array':
      return [
        ...(typeof schema['maxItems'] === 'number' ? [] : [`${path}: a list without maxItems`]),
        ...unbounded(schema['items'], `${path}[]`),
      ];
    case 'object': {
      const props = Object.entries((schema['properties'] ?? {}) as Record<string, any>);
      const values = Object.values((schema['patternProperties'] ?? {}) as Record<string, any>);
      const out = props.flatMap(([k, s]) => unbounded(s, `${path}.${k}`));
      if (values.length > 0) {
        if (typeof schema['maxProperties'] !== 'number') out.push(`${path}: a map without maxProperties`);
        if (typeof schema[MAX_BYTES] !== 'number') out.push(`${path}: a map whose keys are not bounded (${MAX_BYTES})`);
        out.push(...values.flatMap((s) => unbounded(s, `${path}.*`)));
      }
      if (props.length === 0 && values.length === 0 && typeof schema[MAX_BYTES] !== 'number')
        out.push(`${path}: a free-form object without a bound the hook enforces (${MAX_BYTES})`);
      return out;
    }
    default:
      return [`${path}: a value of any type`];
  }
}

t.test('every field of every kind’s spec is bounded: in the CRD, and in the hook where the CRD cannot', async (t) => {
  for (const def of composites) {
    t.same(
      unbounded(def.resource.spec as Record<string, any>, 'spec'),
      [],
      `${def.resource.kind}: every field bounded`,
    );
  }
  // The CRD says the bounds: maxProperties on a free-form object, its size in the description; the hook's own
  // keyword is not in it.
  const etcd = composites.find((d) => d.name === 'etcdcluster')!;
  const pod = (crd(etcd.resource) as any).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pod;
  t.match(pod.properties.affinity, {
    'x-kubernetes-preserve-unknown-fields': true,
    maxProperties: 32,
    description: /At most 16 KiB as JSON/,
  });
  t.match(pod.properties.tolerations, { maxItems: 32, description: /At most 16 KiB as JSON/ });
  t.match(pod.properties.labels, { maxProperties: 64, additionalProperties: { maxLength: 63 } });
  t.notMatch(JSON.stringify(crd(etcd.resource)), MAX_BYTES);
});

t.test('the hook enforces the size of free-form fields and maps: InvalidSpec naming the field', async (t) => {
  const parser = specParser(
    Type.Object({
      o: Type.Optional(freeForm('an object', 100)),
      m: Type.Optional(stringMap('a map', { maxProperties: 10, maxValueLength: 50, maxBytes: 60 })),
      l: Type.Optional(Type.Array(Type.Object({ e: Type.Optional(freeForm('an entry', 30)) }), { maxItems: 3 })),
    }),
  );
  t.same(
    byteBounds(parser.schema).map((b) => [b.path.join('/'), b.max]),
    [
      ['o', 100],
      ['m', 60],
      ['l/[]/e', 30],
    ],
  );
  t.same(parser.parse({ o: blob(100) }), { ok: true, spec: { o: blob(100) } }, 'at the bound');
  t.same(parser.parse({ o: blob(101) }), { ok: false, message: 'spec.o is 101 bytes as JSON: at most 100' });
  // UTF-8 bytes, not characters: 'é' is two.
  t.same(parser.parse({ o: { x: `${'é'.repeat(46)}a` } }), {
    ok: false,
    message: 'spec.o is 101 bytes as JSON: at most 100',
  });
  t.equal(parser.parse({ m: { a: 'x'.repeat(50) } }).ok, true);
  t.same(
    parser.parse({ m: { ['k'.repeat(60)]: 'x' } }),
    { ok: false, message: `spec.m is 68 bytes as JSON: at most 60` },
    'a long key counts, though no value is long',
  );
  t.same(parser.parse({ l: [{ e: blob(30) }, { e: blob(31) }] }), {
    ok: false,
    message: 'spec.l[1].e is 31 bytes as JSON: at most 30',
  });
  t.equal(parser.parse({ l: [{}, { e: blob(30) }] }).ok, true, 'an entry without the field');
  // The CRD's maxProperties, checked by the hook too.
  t.equal(parser.parse({ o: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 1])) }).ok, false);
});

t.test('every kind states an answer budget', async (t) => {
  for (const def of operators) t.ok(def.answerBudget, `${def.name} has one`);
});

t.test(
  'the largest spec of every kind is answered within its estimate, and the estimate within the budget',
  async (t) => {
    t.same(Object.keys(WORST_SPECS).sort(), composites.map((d) => d.name).sort(), 'a worst spec for every kind');
    for (const def of composites) {
      for (const name of ['a', 'n'.repeat(40)]) {
        const parent = worstParent(def.name, structuredClone(WORST_SPECS[def.name]!));
        parent.metadata.name = name;
        const res = await worstAnswer(def, parent);
        t.not(
          readyOf(res)?.reason,
          'InvalidSpec',
          `${def.name} (${name.length}): served, ${readyOf(res)?.message ?? ''}`,
        );
        const actual = res.children.reduce((n, c) => n + jsonBytes(c), 0);
        const { bytes } = def.answerBudget!.estimate(parent.spec, parent);
        t.ok(actual <= bytes, `${def.name} (${name.length}): ${actual} bytes of children, estimated ${bytes}`);
        t.ok(bytes <= MAX_ANSWER_BYTES, `${def.name} (${name.length}): ${bytes} within ${MAX_ANSWER_BYTES}`);
      }
    }
  },
);

t.test('a spec over its kind’s budget is InvalidSpec, every observed child kept', async (t) => {
  const budget = {
    estimate: (spec: { n: number }) => ({ bytes: spec.n * 1024, what: `${spec.n} things of 1 KiB` }),
    advice: 'ask for fewer',
    maxBytes: 10 * 1024,
  };
  const parent = { apiVersion: 'x/v1', kind: 'Toy', metadata: { name: 't' } };
  t.equal(answerBudgetProblem('Toy', budget, { n: 10 }, parent), undefined);
  t.equal(
    answerBudgetProblem('Toy', budget, { n: 11 }, parent),
    '11 things of 1 KiB make an answer of ~0.0 MiB, more than the 0.0 MiB a Toy may have: ask for fewer',
  );
  t.equal(
    answerBudgetProblem('Toy', { ...budget, maxBytes: 10 * MAX_ANSWER_BYTES }, { n: 4097 }, parent),
    '4097 things of 1 KiB make an answer of ~4.0 MiB, more than the 4.0 MiB a Toy may have: ask for fewer',
    'no kind may state more than MAX_ANSWER_BYTES',
  );
  t.equal(namesBytes({ ...parent, metadata: { name: 'ab', namespace: 'c' } }), 48);
});

t.test(
  'an EtcdCluster of 1.45 MiB with size 9 is refused in the hook, with an answer of its observed children only',
  async (t) => {
    // The object of the attack: 1.45 MiB in fields copied into every member (the CRD keeps them open), size 9. Before
    // the bounds it was answered with 13.7 MB of pods.
    const etcd = composites.find((d) => d.name === 'etcdcluster')!;
    const parent = oversizedParent('etcdcluster');
    const size = jsonBytes(parent);
    t.ok(size > 1.4 * 1024 * 1024, `the parent is ${size} bytes`);
    const kept = { apiVersion: 'v1', kind: 'Service', metadata: { name: `${parent.metadata.name}-client` } };
    const res = await worstAnswer(etcd, parent, objectMap([asObserved(kept as any)]));
    t.match(readyOf(res), {
      reason: 'InvalidSpec',
      message: /^spec\.pod\.affinity is \d+ bytes as JSON: at most 16384$/,
    });
    t.same(
      res.children.map((c) => c.metadata.name),
      [kept.metadata.name],
      'the observed child is kept, nothing is built',
    );
    t.ok(jsonBytes(res) < 64 * 1024, `the answer is ${jsonBytes(res)} bytes`);
    // Through the app: the same, for an object one tenant may write in its own namespace.
    const app = testApp({ services: { now: () => FIXED_NOW }, allowUnauthenticated: true });
    t.teardown(() => app.close());
    const http = await app.inject({
      method: 'POST',
      url: '/hooks/etcdcluster/sync',
      payload: syncRequest(parent),
    });
    t.equal(http.statusCode, 200);
    t.ok(http.body.length < 64 * 1024, `${http.body.length} bytes answered`);
    t.equal(parent.metadata.namespace, LONGEST_NAMESPACE);
  },
);
