// An EtcdCluster's answer budget (index.ts answerBudget.estimate) is the bound a spec is refused by before any
// child is built: it must count every child the sync may answer. Where the namespace's own egress policies select
// some of the cluster's pods, the sync answers metaops' `-egress-` complement policies besides `<name>-members` and
// `<name>-restore-check` (network.ts memberComplementPolicies, checkComplementPolicies): up to
// MAX_COMPLEMENT_SELECTORS each, carrying up to MAX_COMPLEMENT_VALUES label values in all. Before, the estimate
// counted two Services, a PodDisruptionBudget and one policy beside the members, and none of them.
import t from 'tap';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { checkComplementPolicies, memberComplementPolicies } from '../../hooks/etcdcluster/network.js';
import { MAX_SIZE } from '../../hooks/etcdcluster/schema.js';
import { jsonBytes, namesBytes } from '../../lib/budget.js';
import {
  MAX_COMPLEMENT_SELECTORS,
  MAX_COMPLEMENT_VALUES,
  type NamespaceGovernance,
  type Requirement,
} from '../../lib/network-policy.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';

/** The largest complement the namespace's policies may make: MAX_COMPLEMENT_SELECTORS terms, every value 63 bytes. */
function worstGovernance(): NamespaceGovernance {
  const perTerm = MAX_COMPLEMENT_VALUES / MAX_COMPLEMENT_SELECTORS;
  const complement: Requirement[][] = Array.from({ length: MAX_COMPLEMENT_SELECTORS }, (_, i) => [
    {
      key: `example.com/${'k'.repeat(50)}${i}`,
      operator: 'NotIn',
      values: Array.from({ length: perTerm }, (_, j) => `${String(j).padStart(3, '0')}${'v'.repeat(60)}`),
    },
  ]);
  return { egress: true, ingress: false, egressBy: ['admin'], ingressBy: [], complement };
}

t.test('the answer budget counts the egress complement policies of the members and the restore check', async (t) => {
  const parent = etcdParent({ size: MAX_SIZE });
  const spec = etcdSpec({ size: MAX_SIZE });
  const governance = worstGovernance();
  const complement = [
    ...memberComplementPolicies(parent, {}, true, governance),
    ...checkComplementPolicies(parent, {}, governance),
  ];
  t.equal(complement.length, 2 * MAX_COMPLEMENT_SELECTORS, 'both sets of complement policies answered at their most');
  const complementBytes = jsonBytes(complement);
  const { bytes } = etcdcluster.answerBudget!.estimate(spec as never, parent);
  // The estimate's own floor for what it counted before: (MAX_SIZE + 1) members of at least 8 KiB and the names, and
  // four other children of 2 KiB and the names each.
  const before = (MAX_SIZE + 1) * (8192 + namesBytes(parent)) + 4 * (2048 + namesBytes(parent));
  t.ok(
    bytes >= before + complementBytes,
    `the estimate (${bytes} bytes) leaves room for the complement policies (${complementBytes} bytes) beside the members and the other children (${before} bytes at least)`,
  );
});
