// The composition root's list: every operator metaops serves. A new operator is a folder under hooks/ and a
// line here; lib/ knows none of them.
import type { HookDefinition } from '../lib/hook.js';
import { etcdbackup, etcdrestore } from '../hooks/etcdbackup/index.js';
import { etcdcluster } from '../hooks/etcdcluster/index.js';
import { memcached } from '../hooks/memcached/index.js';
import { mysqlcluster } from '../hooks/mysqlcluster/index.js';
import { podbuggertool, podbuggertoolInjector } from '../hooks/podbuggertool/index.js';
import { podNetworkPolicy } from '../hooks/podpolicy/index.js';
import { podset } from '../hooks/podset/index.js';
import { s3 } from '../hooks/s3/index.js';

export const operators: HookDefinition[] = [
  memcached,
  podset,
  mysqlcluster,
  etcdcluster,
  etcdbackup,
  etcdrestore,
  s3,
  podbuggertool,
  podbuggertoolInjector,
  podNetworkPolicy,
];

/** What is wrong in the server's environment for any operator (lib/config.ts refuses to start with these). */
export function configProblems(env: NodeJS.ProcessEnv): string[] {
  // (A setting several operators read, the cluster domain, is told once.)
  return [...new Set(operators.flatMap((op) => op.configProblems?.(env) ?? []))];
}

/** What the environment makes an operator do that the server warns about at start. */
export function configWarnings(env: NodeJS.ProcessEnv): string[] {
  // Once each: operators that share a setting share its warning (Memcached's and EtcdBackup's parent label).
  return [...new Set(operators.flatMap((op) => op.configWarnings?.(env) ?? []))];
}
