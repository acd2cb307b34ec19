// The end-to-end scenarios, one file per operator (and the cross-cutting ones), in the order run.ts runs them.
import type { Scenario } from './common.js';
import { memcached } from './memcached.js';
import { podset } from './podset.js';
import { mysql } from './mysqlcluster.js';
import { hookDown } from './hook-down.js';
import { etcd } from './etcd.js';
import { s3 } from './s3.js';
import { podbuggertool, podbuggertoolUpgrade } from './podbuggertool.js';
import { podbuggertoolAtRest, podbuggertoolAtScale } from './podbuggertool-scale.js';
import { restricted } from './restricted.js';
import { eventsRestrictedEtcd } from './events.js';
import { helm } from './helm.js';

export type { Scenario };
export const scenarios: Scenario[] = [
  memcached,
  podset,
  mysql,
  hookDown,
  etcd,
  s3,
  podbuggertool,
  podbuggertoolUpgrade,
  restricted,
  eventsRestrictedEtcd,
  // Replaces the suite's CRDs and controllers with the chart's, then puts them back: any scenario may follow it.
  helm,
  // Last: they fill the cluster with thousands of pods.
  podbuggertoolAtScale,
  podbuggertoolAtRest,
];
