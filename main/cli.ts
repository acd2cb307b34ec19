#!/usr/bin/env node
// `metaops <command>`: the work that runs in children (Jobs, init containers) rather than in the hooks.
//   metaops etcd-backup --endpoints URL[,URL] --s3-path BUCKET/KEY [--periodic] [--max-backups N]
//                       [--timeout-seconds S] [--s3-endpoint URL] [--force-path-style] [--tls-dir DIR]
//                       [--aws-dir DIR] [--backup-uid UID --backup-name NAMESPACE/NAME] [--spare KEY]... [--spare-all]
//                       [--min-interval-seconds S] [--cluster-id URL=HEX]...
//   metaops etcd-restore-fetch --s3-path BUCKET/KEY --file PATH [--restore-dir DIR --data-dir DIR]
//                              [--sha256 HEX [--version-id ID | --pinned-path BUCKET/KEY]]
//                              [--s3-endpoint URL] [--force-path-style] [--aws-dir DIR]
//   metaops etcd-restore-place --restore-dir DIR --data-dir DIR
//   metaops etcd-restore-check --s3-path BUCKET/KEY [--pin-path BUCKET/KEY] [--aws-secret NAME] [--aws-dir DIR]
//                              [--s3-endpoint URL] [--force-path-style]
// AWS credentials: with --aws-dir (an awsSecret mounted there), only that Secret's (its AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY keys, else its `credentials` file, read as plain values), never the pod's ambient ones;
// without it (a namespace the server allows ambient credentials), the SDK's standard chain. A restore's check and
// its fetch use the same client as a backup: the same credentials rule, the same deadline on every S3 call.
// The backup's result is printed as JSON and written to the container's termination message, where the
// EtcdBackup hook reads it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { runBackup, s3Region, secretCredentials, type BackupOptions } from '../hooks/etcdbackup/backup.js';
import { checkSnapshot, errorOf, fetchChecked, placeRestored, prepareRestore } from '../hooks/etcdcommon/snapshot.js';

const TERMINATION_LOG = process.env['METAOPS_TERMINATION_LOG'] ?? '/dev/termination-log';

/** An awsSecret that holds no credentials: the command fails rather than use the pod's ambient ones. */
class NoCredentials extends Error {}

/**
 * The S3 client of a command: the endpoint given, the Secret's credentials (--aws-dir) or the standard chain, and a
 * deadline on every call (a silent S3 fails the command instead of holding the Job until its own deadline).
 */
function s3Client(
  values: { 's3-endpoint'?: string; 'force-path-style'?: boolean; 'aws-dir'?: string; 'aws-secret'?: string },
  timeoutMs: number,
): S3Client {
  const url = values['s3-endpoint'] || process.env['AWS_ENDPOINT_URL'];
  const dir = values['aws-dir'];
  let credentials: ReturnType<typeof secretCredentials>;
  if (dir) {
    credentials = secretCredentials(process.env, dir);
    // A restore's check names its Secret (mounted optional there, so that a missing one is this answer).
    const secret = values['aws-secret'];
    if (!credentials)
      throw new NoCredentials(
        `${secret ? `the awsSecret ${secret} was not found in this namespace, or it` : `the awsSecret mounted at ${dir}`} holds no credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY keys, or a credentials file with a [default] profile)`,
      );
  }
  return new S3Client({
    region: dir ? s3Region(process.env, join(dir, 'config')) : s3Region(),
    ...(url ? { endpoint: url } : {}),
    ...(credentials ? { credentials } : {}),
    forcePathStyle: (values['force-path-style'] ?? false) || Boolean(url),
    maxAttempts: 3,
    // throwOnRequestTimeout: without it a request past its timeout only logs a warning and waits on.
    requestHandler: new NodeHttpHandler({
      connectionTimeout: 5000,
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
}

/** The result, as JSON on stdout and in the termination message (where the EtcdBackup hook reads it). */
function report(result: object, uid: string | undefined): void {
  const text = JSON.stringify(uid ? { ...result, backupUid: uid } : result);
  console.log(text);
  try {
    if (existsSync(TERMINATION_LOG) || process.env['METAOPS_TERMINATION_LOG']) writeFileSync(TERMINATION_LOG, text);
  } catch {
    // no termination log outside a container
  }
}

/**
 * The clientTLSSecret's files, or what is missing: a file the Secret lacks is the backup's failure, reported like
 * any other, naming the file.
 */
function clientTls(dir: string): { ca: string; cert: string; key: string } | string {
  const missing: string[] = [];
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      missing.push(file);
      return '';
    }
  };
  const tls = { ca: read('etcd-client-ca.crt'), cert: read('etcd-client.crt'), key: read('etcd-client.key') };
  return missing.length ? `the clientTLSSecret mounted at ${dir} has no ${missing.join(', ')}` : tls;
}

const OPTIONS = {
  endpoints: { type: 'string' },
  's3-path': { type: 'string' },
  's3-endpoint': { type: 'string' },
  'force-path-style': { type: 'boolean', default: false },
  periodic: { type: 'boolean', default: false },
  'max-backups': { type: 'string', default: '0' },
  'min-interval-seconds': { type: 'string', default: '0' },
  'cluster-id': { type: 'string', multiple: true },
  'timeout-seconds': { type: 'string', default: '60' },
  'tls-dir': { type: 'string' },
  file: { type: 'string' },
  'aws-dir': { type: 'string' },
  'aws-secret': { type: 'string' },
  'backup-uid': { type: 'string' },
  'backup-name': { type: 'string' },
  spare: { type: 'string', multiple: true },
  'spare-all': { type: 'boolean', default: false },
  'restore-dir': { type: 'string' },
  'data-dir': { type: 'string' },
  'pin-path': { type: 'string' },
  sha256: { type: 'string' },
  'version-id': { type: 'string' },
  'pinned-path': { type: 'string' },
} as const;

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, strict: true }).values;
}

type Values = ReturnType<typeof parse>;

/**
 * What `etcd-backup` does, from its arguments (the Job's, as the hook writes them), but its S3 client and TLS files:
 * the one reading of the arguments, for the command and for tests that run a Job's backup against a stand-in S3.
 */
export function backupOptionsOf(argsOrValues: string[] | Values): Omit<BackupOptions, 's3' | 'tls'> {
  const values = Array.isArray(argsOrValues)
    ? parse(argsOrValues.slice(argsOrValues[0] === 'etcd-backup' ? 1 : 0))
    : argsOrValues;
  if (!values.endpoints || !values['s3-path']) throw new Error('etcd-backup needs --endpoints and --s3-path');
  const minInterval = Number(values['min-interval-seconds']);
  return {
    endpoints: values.endpoints.split(',').filter(Boolean),
    path: values['s3-path'],
    periodic: values.periodic ?? false,
    maxBackups: Number(values['max-backups']),
    timeoutMs: Number(values['timeout-seconds']) * 1000,
    ...(Number.isSafeInteger(minInterval) && minInterval > 0 ? { minIntervalSeconds: minInterval } : {}),
    // The etcd cluster ID each endpoint must answer with (`URL=HEX`): the one its EtcdCluster records.
    ...(values['cluster-id']?.length
      ? {
          clusterIds: Object.fromEntries(
            values['cluster-id'].map((v) => [v.slice(0, v.lastIndexOf('=')), v.slice(v.lastIndexOf('=') + 1)]),
          ),
        }
      : {}),
    ...(values['backup-uid'] ? { backup: { uid: values['backup-uid'], name: values['backup-name'] ?? '' } } : {}),
    spare: values['spare-all'] ? 'all' : (values.spare ?? []),
  };
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const values = parse(rest);
  const timeoutMs = Number(values['timeout-seconds']) * 1000;
  // The client is made when a step first needs S3: a restored member's init step run again on its kept data asks
  // nothing of S3, so it needs no credentials (its Secret may be gone by then).
  const s3 = () => s3Client(values, timeoutMs);
  try {
    if (command?.startsWith('etcd-restore-')) return await restoreCommand(command, values, s3);
    return await backupCommand(command, values, s3);
  } catch (err) {
    if (!(err instanceof NoCredentials)) throw err;
    report({ succeeded: false, reason: err.message }, values['backup-uid']);
    return 1;
  }
}

async function backupCommand(command: string | undefined, values: Values, s3: () => S3Client): Promise<number> {
  switch (command) {
    case 'etcd-backup': {
      const options = backupOptionsOf(values);
      const tlsDir = values['tls-dir'];
      const tls = tlsDir ? clientTls(tlsDir) : undefined;
      if (typeof tls === 'string') {
        report({ succeeded: false, reason: tls }, values['backup-uid']);
        return 1;
      }
      const result = await runBackup({ ...options, s3: s3(), ...(tls ? { tls } : {}) });
      report(result, values['backup-uid']);
      return result.succeeded ? 0 : 1;
    }
    default:
      console.error(
        'usage: metaops etcd-backup ... | metaops etcd-restore-fetch|etcd-restore-place|etcd-restore-check ...',
      );
      return 2;
  }
}

/** The steps of a restore: its check before anything is dropped, and a restored member's init steps. */
async function restoreCommand(
  command: string,
  values: {
    's3-path'?: string;
    file?: string;
    'restore-dir'?: string;
    'data-dir'?: string;
    'aws-secret'?: string;
    'pin-path'?: string;
    sha256?: string;
    'version-id'?: string;
    'pinned-path'?: string;
  },
  s3: () => S3Client,
): Promise<number> {
  switch (command) {
    case 'etcd-restore-fetch': {
      if (!values['s3-path'] || !values.file) throw new Error('etcd-restore-fetch needs --s3-path and --file');
      // Run again after the member started (its pod's sandbox recreated): its data and the kept snapshot stay.
      const restoreDir = values['restore-dir'];
      const dataDir = values['data-dir'];
      if (restoreDir && dataDir && prepareRestore(values.file, restoreDir, dataDir) === 'kept') {
        report({ succeeded: true, kept: true, file: values.file }, undefined);
        return 0;
      }
      const client = s3();
      try {
        // The snapshot its restore checked (its pin), never other bytes found at the key since.
        const size = await fetchChecked(client, values['s3-path'], values.file, {
          ...(values.sha256 ? { sha256: values.sha256 } : {}),
          ...(values['version-id'] ? { versionId: values['version-id'] } : {}),
          ...(values['pinned-path'] ? { pinnedPath: values['pinned-path'] } : {}),
        });
        report({ succeeded: true, size, file: values.file }, undefined);
        return 0;
      } catch (err) {
        // Its `error` (name and code, no path) is what the hook judges a transient failure by (restore.ts).
        report(
          {
            succeeded: false,
            reason: `${(err as { name?: string }).name ?? 'Error'}: ${(err as Error).message}`,
            error: errorOf(err),
          },
          undefined,
        );
        return 1;
      }
    }
    case 'etcd-restore-place': {
      if (!values['restore-dir'] || !values['data-dir'])
        throw new Error('etcd-restore-place needs --restore-dir and --data-dir');
      try {
        report({ succeeded: true, data: placeRestored(values['restore-dir'], values['data-dir']) }, undefined);
        return 0;
      } catch (err) {
        report({ succeeded: false, reason: (err as Error).message }, undefined);
        return 1;
      }
    }
    case 'etcd-restore-check': {
      // A restore's check before any member is dropped (hooks/etcdcommon/snapshot.ts).
      if (!values['s3-path']) throw new Error('etcd-restore-check needs --s3-path');
      const result = await checkSnapshot(s3(), values['s3-path'], {
        awsSecret: values['aws-secret'],
        pinPath: values['pin-path'],
      });
      report(result, undefined);
      return result.succeeded ? 0 : 1;
    }
    default:
      console.error(`metaops: unknown command ${command}`);
      return 2;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`metaops: ${err.message}`);
      process.exit(2);
    },
  );
}
