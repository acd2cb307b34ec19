#!/usr/bin/env node
// `metaops <command>`: the work that runs in children (Jobs, init containers) rather than in the hooks.
//   metaops etcd-backup --endpoints URL[,URL] --s3-path BUCKET/KEY [--periodic] [--max-backups N]
//                       [--timeout-seconds S] [--s3-endpoint URL] [--force-path-style] [--tls-dir DIR]
//   metaops etcd-restore-fetch --s3-path BUCKET/KEY --file PATH [--restore-dir DIR --data-dir DIR]
//                              [--s3-endpoint URL] [--force-path-style]
//   metaops etcd-restore-place --restore-dir DIR --data-dir DIR
//   metaops etcd-restore-check --s3-path BUCKET/KEY [--aws-secret NAME] [--s3-endpoint URL] [--force-path-style]
// AWS credentials come from the SDK's standard chain (AWS_* variables, AWS_SHARED_CREDENTIALS_FILE, ...).
// The backup's result is printed as JSON and written to the container's termination message, where the
// EtcdBackup hook reads it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { fetchSnapshot, runBackup, s3Region } from '../hooks/etcdbackup/backup.js';
import { checkSnapshot, placeRestored, prepareRestore } from '../hooks/etcdcommon/snapshot.js';

const TERMINATION_LOG = process.env['METAOPS_TERMINATION_LOG'] ?? '/dev/termination-log';

function s3Client(endpoint: string | undefined, forcePathStyle: boolean): S3Client {
  const url = endpoint || process.env['AWS_ENDPOINT_URL'];
  return new S3Client({
    region: s3Region(),
    ...(url ? { endpoint: url } : {}),
    forcePathStyle: forcePathStyle || Boolean(url),
  });
}

function report(result: unknown): void {
  const text = JSON.stringify(result);
  console.log(text);
  try {
    if (existsSync(TERMINATION_LOG) || process.env['METAOPS_TERMINATION_LOG']) writeFileSync(TERMINATION_LOG, text);
  } catch {
    // no termination log outside a container
  }
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
      'aws-secret': { type: 'string' },
      'restore-dir': { type: 'string' },
      'data-dir': { type: 'string' },
    },
    strict: true,
  });
  const s3 = s3Client(values['s3-endpoint'], values['force-path-style'] ?? false);
  if (command?.startsWith('etcd-restore-')) return restoreCommand(command, values, s3);
  switch (command) {
    case 'etcd-backup': {
      if (!values.endpoints || !values['s3-path']) throw new Error('etcd-backup needs --endpoints and --s3-path');
      const tlsDir = values['tls-dir'];
      let tls: { ca: string; cert: string; key: string } | undefined;
      if (tlsDir) {
        // The clientTLSSecret's files: one that is missing (a key the Secret lacks) is the backup's failure,
        // reported like any other, naming the file.
        const missing: string[] = [];
        const read = (file: string) => {
          try {
            return readFileSync(join(tlsDir, file), 'utf8');
          } catch {
            missing.push(file);
            return '';
          }
        };
        tls = { ca: read('etcd-client-ca.crt'), cert: read('etcd-client.crt'), key: read('etcd-client.key') };
        if (missing.length) {
          report({ succeeded: false, reason: `the clientTLSSecret mounted at ${tlsDir} has no ${missing.join(', ')}` });
          return 1;
        }
      }
      const result = await runBackup({
        endpoints: values.endpoints.split(',').filter(Boolean),
        path: values['s3-path'],
        periodic: values.periodic ?? false,
        maxBackups: Number(values['max-backups']),
        timeoutMs: Number(values['timeout-seconds']) * 1000,
        s3,
        ...(tls ? { tls } : {}),
      });
      report(result);
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
  values: { 's3-path'?: string; file?: string; 'restore-dir'?: string; 'data-dir'?: string; 'aws-secret'?: string },
  s3: S3Client,
): Promise<number> {
  switch (command) {
    case 'etcd-restore-fetch': {
      if (!values['s3-path'] || !values.file) throw new Error('etcd-restore-fetch needs --s3-path and --file');
      // Run again after the member started (its pod's sandbox recreated): its data and the kept snapshot stay.
      const restoreDir = values['restore-dir'];
      const dataDir = values['data-dir'];
      if (restoreDir && dataDir && prepareRestore(values.file, restoreDir, dataDir) === 'kept') {
        report({ succeeded: true, kept: true, file: values.file });
        return 0;
      }
      try {
        const size = await fetchSnapshot(s3, values['s3-path'], values.file);
        report({ succeeded: true, size, file: values.file });
        return 0;
      } catch (err) {
        report({
          succeeded: false,
          reason: `${(err as { name?: string }).name ?? 'Error'}: ${(err as Error).message}`,
        });
        return 1;
      }
    }
    case 'etcd-restore-place': {
      if (!values['restore-dir'] || !values['data-dir'])
        throw new Error('etcd-restore-place needs --restore-dir and --data-dir');
      try {
        report({ succeeded: true, data: placeRestored(values['restore-dir'], values['data-dir']) });
        return 0;
      } catch (err) {
        report({ succeeded: false, reason: (err as Error).message });
        return 1;
      }
    }
    case 'etcd-restore-check': {
      // A restore's check before any member is dropped (hooks/etcdcommon/snapshot.ts).
      if (!values['s3-path']) throw new Error('etcd-restore-check needs --s3-path');
      const result = await checkSnapshot(s3, values['s3-path'], { awsSecret: values['aws-secret'] });
      report(result);
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
