// An S3 resource's sync request must not grow with the number of S3 resources in its namespace. The S3 customize hook
// asks Metacontroller for every S3 resource of the parent's namespace (a rule with no `names`), so that a resource
// held for a secretName can judge its holder (status.heldBy). Metacontroller sends every one of them, as stored
// (metadata.managedFields included), with each sync of each S3 resource of that namespace: n resources make n syncs
// of n objects each, every resync (300 s). Past the server's body limit (8 MiB by default), every sync of every S3
// resource in that namespace is refused with 413 and none of them is reconciled again (no status, no key, no bucket)
// — including ones that were never held and never share a Secret name. A namespace of ~4,000 ordinary S3 resources
// (~2.1 KiB each as stored: a platform team's buckets), or fewer than 200 with the 24 KiB of tags the CRD allows
// (stored twice: the spec and kubectl's last-applied annotation), is enough. Below the limit the cost is still
// quadratic: 3,000 resources make a 6.3 MiB request for each of 3,000 syncs every resync.
//
// The holders a resource judges are known by name (status.heldBy, at most 3), so nothing needs the whole namespace.
import t from 'tap';
import { s3 } from '../../hooks/s3/index.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const NS = 'platform';
const TOKEN = 's3-namespace-size-token-0123456789abcdef';
const SIBLINGS = 4500;

/** An S3 resource as the API server stores it and Metacontroller sends it: a few tags, managedFields, a Ready status. */
function stored(i: number): KubeObject {
  const name = `team-${String(i).padStart(4, '0')}-artifacts`;
  const tags = { team: `team-${i}`, 'cost-center': `cc-${1000 + i}`, environment: 'production' };
  return {
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: {
      name,
      namespace: NS,
      uid: `0b6a4c1e-7f2d-4e9a-9c3b-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100000 + i),
      generation: 1,
      creationTimestamp: '2026-11-01T10:00:00Z',
      finalizers: ['metacontroller.io/compositecontroller-s3'],
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: 'systek.no/v1',
          time: '2026-11-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
            'f:spec': { '.': {}, 'f:bucketName': {}, 'f:region': {}, 'f:tags': { '.': {}, 'f:team': {} } },
          },
        },
        {
          manager: 'metacontroller',
          operation: 'Update',
          apiVersion: 'systek.no/v1',
          time: '2026-11-01T10:00:05Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:status': { '.': {}, 'f:conditions': {}, 'f:bucketName': {}, 'f:accessKeyId': {} } },
          subresource: 'status',
        },
      ],
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
          apiVersion: 'systek.no/v1',
          kind: 'S3',
          metadata: { name, namespace: NS },
          spec: { bucketName: `acme-${name}`, region: 'eu-north-1', tags },
        }),
      },
    },
    spec: { ...S3_DEFAULTS, bucketName: `acme-${name}`, region: 'eu-north-1', tags },
    status: {
      bucketName: `acme-${name}`,
      region: 'eu-north-1',
      iamUser: `metaops-${NS}-${name}-0123456789ab`,
      accessKeyId: 'AKIAEXAMPLE0000000000',
      secretName: `${name}-credentials`,
      createdBuckets: [`acme-${name}`],
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Available',
          message: `bucket acme-${name} and its credentials are ready`,
          lastTransitionTime: '2026-11-01T10:00:05Z',
          observedGeneration: 1,
        },
        {
          type: 'Synced',
          status: 'True',
          reason: 'Synced',
          message: 'AWS matches the spec',
          lastTransitionTime: '2026-11-01T10:00:05Z',
          observedGeneration: 1,
        },
      ],
    },
  } as unknown as KubeObject;
}

/** A new S3 resource in that namespace. */
const newResource = () =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name: 'new-team-artifacts', namespace: NS, uid: 'uid-new', generation: 1 },
    spec: { ...S3_DEFAULTS, bucketName: 'acme-new-team-artifacts', region: 'eu-north-1' },
  }) as ParentObject;

/** The related rules `parent`'s customize hook answers. */
const relatedRules = (parent: ParentObject) =>
  (s3.customize!({ controller: {}, parent } as any, {} as any) as any).relatedResources as RelatedResourceRule[];

/** What Metacontroller sends as related objects for these rules, from the S3 resources the namespace holds. */
function relatedFor(rules: RelatedResourceRule[], namespace: KubeObject[]): Record<string, Record<string, KubeObject>> {
  const out: Record<string, Record<string, KubeObject>> = {};
  for (const rule of rules) {
    if (rule.resource !== 's3s') continue;
    const group = (out['S3.systek.no/v1'] ??= {});
    for (const obj of namespace) {
      if (rule.namespace && obj.metadata.namespace !== rule.namespace) continue;
      if (rule.names && !rule.names.includes(obj.metadata.name!)) continue;
      group[`${obj.metadata.namespace}/${obj.metadata.name}`] = obj;
    }
  }
  return out;
}

t.test("an S3 resource's sync request does not grow with the S3 resources of its namespace", async (t) => {
  const namespace = Array.from({ length: SIBLINGS }, (_, i) => stored(i));
  // A new resource in that namespace, never held: it shares no Secret name with anyone.
  const parent = newResource();
  const rules = relatedRules(parent);
  const related = relatedFor(rules, namespace);
  const s3Count = Object.keys(related['S3.systek.no/v1'] ?? {}).length;
  t.ok(s3Count <= 3, `at most the (3) holders a resource remembers are sent with its sync: ${s3Count} S3 resources`);

  const payload = JSON.stringify({ controller: {}, parent, children: { 'Secret.v1': {} }, related });
  t.comment(`sync request: ${(payload.length / 1048576).toFixed(2)} MiB for ${SIBLINGS} S3 resources beside it`);
  const app = testApp({ auth: { bearer: TOKEN }, clients: { s3: { aws: async () => new FakeAws() } } });
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/s3/sync',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    payload,
  });
  t.not(
    res.statusCode,
    413,
    `the sync is not refused as too large (limit ${DEFAULT_BODY_LIMIT} bytes): ${res.statusCode} ${res.body.slice(0, 200)}`,
  );
  t.equal(res.statusCode, 200, 'the resource is reconciled');
});

// Metacontroller also syncs every parent one of whose related rules matches an object that changed (v4
// customize/manager.go findRelatedParents, matchesRelatedRule: a rule with a namespace and no names matches every
// object of that namespace). So each S3 resource created, edited or given a new status in a namespace syncs every
// other S3 resource of that namespace (Metacontroller's work queue merges repeats of a parent still waiting, not
// syncs already done), and each such sync makes its AWS calls (7 at rest, more while anything is made): N resources
// created or changing together cost up to N syncs each, against AWS quotas shared by the whole account.
t.test(
  'another S3 resource changing in the namespace does not sync this one (it is no holder of its Secret)',
  async (t) => {
    const parent = newResource();
    const rules = relatedRules(parent);
    const other = stored(7);
    const matching = rules.filter(
      (r) =>
        r.resource === 's3s' &&
        r.apiVersion === other.apiVersion &&
        (!r.namespace || r.namespace === other.metadata.namespace) &&
        (!r.names || r.names.includes(other.metadata.name!)),
    );
    t.same(matching, [], `no related rule of ${parent.metadata.name} matches S3 ${other.metadata.name}`);
  },
);
