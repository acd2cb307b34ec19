#!/usr/bin/env node
// `metaops <command>`: the work that runs in children (Jobs, init containers) rather than in the hooks.
//   metaops etcd-backup --endpoints URL[,URL] --s3-path BUCKET/KEY [--periodic] [--max-backups N]
//                       [--timeout-seconds S] [--s3-endpoint URL] [--force-path-style] [--tls-dir DIR]
//                       [--aws-dir DIR] [--backup-uid UID --backup-name NAMESPACE/NAME]
//   metaops etcd-restore-fetch --s3-path BUCKET/KEY --file PATH [--s3-endpoint URL] [--force-path-style]
//                       [--aws-dir DIR]
// AWS credentials: with --aws-dir (an awsSecret mounted there), only that Secret's (its AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY keys, else its `credentials` file, read as plain values), never the pod's ambient ones;
// without it (a namespace the server allows ambient credentials), the SDK's standard chain.
// The backup's result is printed as JSON and written to the container's termination message, where the
// EtcdBackup hook reads it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { fetchSnapshot, runBackup, s3Region, secretCredentials } from '../hooks/etcdbackup/backup.js';

const TERMINATION_LOG = process.env['METAOPS_TERMINATION_LOG'] ?? '/dev/termination-log';

/** An awsSecret that holds no credentials: the command fails rather than use the pod's ambient ones. */
class NoCredentials extends Error {}

/**
 * The S3 client of a command: the endpoint given, the Secret's credentials (--aws-dir) or the standard chain, and a
 * deadline on every call (a silent S3 fails the command instead of holding the Job until its own deadline).
 */
function s3Client(
  values: { 's3-endpoint'?: string; 'force-path-style'?: boolean; 'aws-dir'?: string },
  timeoutMs: number,
): S3Client {
  const url = values['s3-endpoint'] || process.env['AWS_ENDPOINT_URL'];
  const dir = values['aws-dir'];
  let credentials: ReturnType<typeof secretCredentials>;
  if (dir) {
    credentials = secretCredentials(process.env, dir);
    if (!credentials)
      throw new NoCredentials(
        `the awsSecret mounted at ${dir} holds no credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY keys, or a credentials file with a [default] profile)`,
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

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      endpoints: { type: 'string' },
      's3-path': { type: 'string' },
      's3-endpoint': { type: 'string' },
      'force-path-style': { type: 'boolean', default: false },
      periodic: { type: 'boolean', default: false },
      'max-backups': { type: 'string', default: '0' },
      'timeout-seconds': { type: 'string', default: '60' },
      'tls-dir': { type: 'string' },
      file: { type: 'string' },
      'aws-dir': { type: 'string' },
      'backup-uid': { type: 'string' },
      'backup-name': { type: 'string' },
    },
    strict: true,
  });
  const timeoutMs = Number(values['timeout-seconds']) * 1000;
  let s3: S3Client;
  try {
    s3 = s3Client(values, timeoutMs);
  } catch (err) {
    if (!(err instanceof NoCredentials)) throw err;
    report({ succeeded: false, reason: err.message }, values['backup-uid']);
    return 1;
  }
  switch (command) {
    case 'etcd-backup': {
      if (!values.endpoints || !values['s3-path']) throw new Error('etcd-backup needs --endpoints and --s3-path');
      const tlsDir = values['tls-dir'];
      const tls = tlsDir ? clientTls(tlsDir) : undefined;
      if (typeof tls === 'string') {
        report({ succeeded: false, reason: tls }, values['backup-uid']);
        return 1;
      }
      const result = await runBackup({
        endpoints: values.endpoints.split(',').filter(Boolean),
        path: values['s3-path'],
        periodic: values.periodic ?? false,
        maxBackups: Number(values['max-backups']),
        timeoutMs,
        s3,
        ...(tls ? { tls } : {}),
        ...(values['backup-uid'] ? { backup: { uid: values['backup-uid'], name: values['backup-name'] ?? '' } } : {}),
      });
      report(result, values['backup-uid']);
      return result.succeeded ? 0 : 1;
    }
    case 'etcd-restore-fetch': {
      if (!values['s3-path'] || !values.file) throw new Error('etcd-restore-fetch needs --s3-path and --file');
      try {
        const size = await fetchSnapshot(s3, values['s3-path'], values.file);
        report({ succeeded: true, size, file: values.file }, undefined);
        return 0;
      } catch (err) {
        report(
          { succeeded: false, reason: `${(err as { name?: string }).name ?? 'Error'}: ${(err as Error).message}` },
          undefined,
        );
        return 1;
      }
    }
    default:
      console.error('usage: metaops etcd-backup ... | metaops etcd-restore-fetch ...');
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
