// METAOPS_DEBUG_EXCLUDED_NAMESPACES names the namespaces whose pods the hook server never touches: a safety control
// that fails open when an entry names no namespace. As an allowlist entry that could never match is refused at start
// (match.ts policyProblems), so is an exclusion that can never apply: a pattern (`kube-*`, which the server compares
// as text and no namespace is called), a name in capitals or with characters no namespace name has. The server
// would otherwise start and debug the very namespaces the administrator meant to keep out.
import t from 'tap';
import { policyFromEnv, policyProblems, refusal } from '../../hooks/podbuggertool/match.js';
import { toolSpec } from '../fixtures/pbt.js';

t.test('an excluded namespace entry that names no namespace is a problem at start', async (t) => {
  // Each entry, and a namespace the administrator meant it to keep out.
  for (const [entry, meant] of [
    ['kube-*', 'kube-public'],
    ['Kube-System', 'kube-system'],
    ['kube_system', 'kube-system'],
    ['team-a/*', 'team-a'],
    ['prod*', 'prod-eu'],
  ] as const) {
    const env = { METAOPS_DEBUG_EXCLUDED_NAMESPACES: entry };
    // As the server reads it, the entry keeps no namespace out: the tool acts there.
    t.equal(refusal(toolSpec(), meant, policyFromEnv(env)), undefined, `${entry}: ${meant} is not excluded`);
    t.match(
      policyProblems(env),
      [new RegExp(`METAOPS_DEBUG_EXCLUDED_NAMESPACES.*${entry.replace(/[*/]/g, '\\$&')}`)],
      `${entry}: refused at start, not accepted to exclude nothing`,
    );
  }
  t.same(policyProblems({ METAOPS_DEBUG_EXCLUDED_NAMESPACES: 'kube-system, kube-public,prod-1' }), []);
});
