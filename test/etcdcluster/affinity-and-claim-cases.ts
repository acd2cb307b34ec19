// Member pod affinities and claim specs with what the API server (kube-apiserver v1.36, as Metacontroller writes:
// unknown fields dropped with a warning) does with each: `refused` when it refuses the pod or the claim. The fast
// suite holds the hook to these (member-affinity-and-claim-rules.test.ts); the real suite checks each against a real
// kube-apiserver (test/real/etcd-member-affinity-and-claim-rules-agree-real.test.ts).

export interface RuleCase {
  what: string;
  value: unknown;
  refused: boolean;
}

const required = (terms: unknown[]) => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
});
const zone = (operator: string, values?: unknown) => ({
  key: 'topology.kubernetes.io/zone',
  operator,
  ...(values === undefined ? {} : { values }),
});
const preferred = (weight: unknown, expression: unknown) => ({
  nodeAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [{ weight, preference: { matchExpressions: [expression] } }],
  },
});
const podTerm = (term: Record<string, unknown>) => ({
  podAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', ...term }],
  },
});

export const affinityCases: RuleCase[] = [
  {
    what: 'a required node affinity In a zone',
    value: required([{ matchExpressions: [zone('In', ['a'])] }]),
    refused: false,
  },
  { what: 'an empty node selector term', value: required([{}]), refused: false },
  { what: 'a required node affinity without a term', value: required([]), refused: true },
  { what: 'In without values', value: required([{ matchExpressions: [zone('In')] }]), refused: true },
  { what: 'Exists with values', value: required([{ matchExpressions: [zone('Exists', ['a'])] }]), refused: true },
  { what: 'Gt with one value', value: required([{ matchExpressions: [zone('Gt', ['1'])] }]), refused: false },
  { what: 'Lt with two values', value: required([{ matchExpressions: [zone('Lt', ['1', '2'])] }]), refused: true },
  { what: 'an operator no one knows', value: required([{ matchExpressions: [zone('Among', ['a'])] }]), refused: true },
  {
    what: 'a required value that is no label value',
    value: required([{ matchExpressions: [zone('In', ['a b'])] }]),
    refused: true,
  },
  {
    what: 'a key that is no label key',
    value: required([{ matchExpressions: [{ key: 'a b', operator: 'Exists' }] }]),
    refused: true,
  },
  {
    what: 'a node name field',
    value: required([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }]),
    refused: false,
  },
  {
    what: 'a node field other than metadata.name',
    value: required([{ matchFields: [{ key: 'metadata.namespace', operator: 'In', values: ['a'] }] }]),
    refused: true,
  },
  {
    what: 'a node name field with two values',
    value: required([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }] }]),
    refused: true,
  },
  {
    what: 'a node name field with Exists',
    value: required([{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }]),
    refused: true,
  },
  {
    what: 'a preferred value that is no label value (allowed there)',
    value: preferred(10, zone('In', ['a b'])),
    refused: false,
  },
  { what: 'a preferred weight of 0', value: preferred(0, zone('In', ['a'])), refused: true },
  { what: 'a preferred weight of 101', value: preferred(101, zone('In', ['a'])), refused: true },
  { what: 'a preferred weight of 1.5', value: preferred(1.5, zone('In', ['a'])), refused: true },
  {
    what: 'a preferred term without a preference',
    value: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1 }] } },
    refused: false,
  },
  { what: 'a nodeAffinity that is not an object', value: { nodeAffinity: 'everywhere' }, refused: true },
  { what: 'values that are not a list', value: required([{ matchExpressions: [zone('In', 'a')] }]), refused: true },
  { what: 'a value that is not a string', value: required([{ matchExpressions: [zone('In', [1])] }]), refused: true },
  { what: 'a field the type does not have (dropped)', value: { nodeAffinity: { everywhere: true } }, refused: false },
  { what: 'a pod affinity term', value: podTerm({ labelSelector: { matchLabels: { app: 'etcd' } } }), refused: false },
  { what: 'a pod affinity term without topologyKey', value: podTerm({ topologyKey: '' }), refused: true },
  { what: 'a topologyKey that is no label key', value: podTerm({ topologyKey: 'a b' }), refused: true },
  { what: 'a namespace that is no DNS label', value: podTerm({ namespaces: ['Not_A_Namespace'] }), refused: true },
  {
    what: 'a label selector operator only node selectors know',
    value: podTerm({ labelSelector: { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] } }),
    refused: true,
  },
  {
    what: 'a matchLabels value that is no label value',
    value: podTerm({ labelSelector: { matchLabels: { app: 'a b' } } }),
    refused: true,
  },
  {
    what: 'a namespaceSelector without values for In',
    value: podTerm({ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In' }] } }),
    refused: true,
  },
  { what: 'matchLabelKeys without a labelSelector', value: podTerm({ matchLabelKeys: ['app'] }), refused: true },
  {
    what: 'matchLabelKeys of a label the pod carries, in the labelSelector as well',
    value: podTerm({ labelSelector: { matchLabels: { app: 'etcd' } }, matchLabelKeys: ['app'] }),
    refused: true,
  },
  {
    what: 'matchLabelKeys of a label the pod does not carry, in the labelSelector as well',
    value: podTerm({ labelSelector: { matchLabels: { rack: 'r1' } }, matchLabelKeys: ['rack'] }),
    refused: false,
  },
  {
    what: 'matchLabelKeys of a label the pod carries',
    value: podTerm({ labelSelector: { matchLabels: { app: 'etcd' } }, matchLabelKeys: ['etcd_node'] }),
    refused: false,
  },
  {
    what: 'one key in matchLabelKeys and mismatchLabelKeys',
    value: podTerm({ labelSelector: {}, matchLabelKeys: ['rack'], mismatchLabelKeys: ['rack'] }),
    refused: true,
  },
  {
    what: 'a preferred pod anti-affinity weight of 0',
    value: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 0, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } },
        ],
      },
    },
    refused: true,
  },
];

const rwo = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
export const claimCases: RuleCase[] = [
  { what: 'one access mode and a storage request', value: rwo, refused: false },
  { what: 'no accessModes', value: { resources: rwo.resources }, refused: true },
  { what: 'an access mode no one knows', value: { ...rwo, accessModes: ['ReadWriteSometimes'] }, refused: true },
  {
    what: 'ReadWriteOncePod with another mode',
    value: { ...rwo, accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] },
    refused: true,
  },
  { what: 'accessModes that are not a list', value: { ...rwo, accessModes: 'ReadWriteOnce' }, refused: true },
  { what: 'no storage request', value: { accessModes: rwo.accessModes }, refused: true },
  { what: 'a storage request of 0', value: { ...rwo, resources: { requests: { storage: '0' } } }, refused: true },
  {
    what: 'a storage request with a fraction',
    value: { ...rwo, resources: { requests: { storage: '1.5Gi' } } },
    refused: false,
  },
  {
    what: 'a limit that is no quantity',
    value: { ...rwo, resources: { ...rwo.resources, limits: { storage: 'lots' } } },
    refused: true,
  },
  { what: 'a class name that is no DNS subdomain', value: { ...rwo, storageClassName: 'Fast_SSD' }, refused: true },
  {
    what: 'a volume attributes class that is no DNS subdomain',
    value: { ...rwo, volumeAttributesClassName: 'Gold Tier' },
    refused: true,
  },
  { what: 'a volume mode no one knows', value: { ...rwo, volumeMode: 'Files' }, refused: true },
  {
    what: 'a data source the API server drops',
    value: { ...rwo, dataSource: { kind: 'Foo', name: 'x' } },
    refused: false,
  },
  {
    what: 'a claim as data source',
    value: { ...rwo, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src' } },
    refused: false,
  },
  {
    what: 'a data source ref of another kind without apiGroup',
    value: { ...rwo, dataSourceRef: { kind: 'Foo', name: 'x' } },
    refused: true,
  },
  {
    what: 'a data source ref without a name',
    value: { ...rwo, dataSourceRef: { apiGroup: 'example.com', kind: 'Foo', name: '' } },
    refused: true,
  },
  {
    what: 'a data source and a ref that differ',
    value: {
      ...rwo,
      dataSource: { kind: 'PersistentVolumeClaim', name: 'a' },
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' },
    },
    refused: true,
  },
  { what: 'a field the type does not have (dropped)', value: { ...rwo, sizeHint: 'big' }, refused: false },
];
