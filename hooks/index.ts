// Every controller metaops serves. A new controller is a folder under hooks/ and a line here.
import type { HookDefinition } from '../lib/hook.js';
import { etcdbackup, etcdrestore } from './etcdbackup/index.js';
import { etcdcluster } from './etcdcluster/index.js';
import { memcached } from './memcached/index.js';
import { mysqlcluster } from './mysqlcluster/index.js';
import { podbuggertool } from './podbuggertool/index.js';
import { podset } from './podset/index.js';
import { s3 } from './s3/index.js';

export const hooks: HookDefinition[] = [
  memcached,
  podset,
  mysqlcluster,
  etcdcluster,
  etcdbackup,
  etcdrestore,
  s3,
  podbuggertool,
];
