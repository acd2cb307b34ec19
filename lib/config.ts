// The server's settings, read from the environment and checked before anything listens. A setting that is
// present but wrong stops the server with a message naming it: a typo must never turn a check off (an empty
// token once meant "no authentication"; a deadline of "10s" once became NaN and made every hook that calls out miss it at once).
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { AuthConfig } from './auth.js';
import { DEFAULT_BODY_BUDGET } from './body-budget.js';
import { LABEL_KEY_ENV, MIN_LABEL_KEY_LENGTH } from './parent-label.js';
import { MAX_REPLICAS, REPLICAS_ENV, REPLICAS_WHY } from './server-replicas.js';

export interface TlsSettings {
  certFile: string;
  keyFile: string;
  /** Client certificates must be signed by this CA (mTLS) to call a hook. */
  clientCaFile?: string;
  /** When set, only client certificates whose CN or DNS SAN is listed may call a hook. */
  clientNames?: string[];
}

export interface Settings {
  port: number;
  host: string;
  logLevel: string;
  auth: AuthConfig;
  /** METAOPS_ALLOW_UNAUTHENTICATED=true: side-effecting hooks serve callers without credentials (logged). */
  allowUnauthenticated: boolean;
  bodyLimit: number;
  /** METAOPS_BODY_BUDGET: the bytes of request bodies in hand at once (lib/body-budget.ts). */
  bodyBudget: number;
  hookDeadlineMs: number;
  tls?: TlsSettings;
}

/**
 * Largest request body, by default. Parsed JSON takes 10-18 times its size in memory for Kubernetes objects (35
 * times for a body of nothing but `{}`); a 1000-pod PodSet's request with managedFields is about 5 MiB.
 */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;
/** The most METAOPS_BODY_LIMIT may be, with the Deployment's 512 MiB memory limit. */
export const MAX_BODY_LIMIT = 32 * 1024 * 1024;
/** The most METAOPS_BODY_BUDGET may be: 64 MiB of `{},` parsed is about 1.3 GiB of heap. */
export const MAX_BODY_BUDGET = 64 * 1024 * 1024;
export const DEFAULT_HOOK_DEADLINE_MS = 8500;
/** Metacontroller's default webhook timeout is 10 s: a deadline at or past it answers nobody. */
export const MAX_HOOK_DEADLINE_MS = 9500;
export const MIN_HOOK_DEADLINE_MS = 100;
/** A Bearer token shorter than this is refused: it can be guessed. */
export const MIN_TOKEN_LENGTH = 16;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`metaops cannot start; fix these settings:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** A whole number in [min, max] written in plain decimal digits, or a problem naming the variable. */
// eslint-disable-next-line max-params -- one call per setting reads as a table row: name, default, bounds, and where problems go
function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const text = raw.trim();
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    problems.push(`${name}=${JSON.stringify(raw)}: expected a whole number from ${min} to ${max}${unitOf(name)}`);
    return fallback;
  }
  return value;
}

/**
 * METAOPS_REPLICAS: a whole number from 1 to MAX_REPLICAS; more (a whole number) is refused with the reason
 * (REPLICAS_WHY), anything else as any integer setting is.
 */
function replicasSetting(env: NodeJS.ProcessEnv, problems: string[]): void {
  const text = env[REPLICAS_ENV]?.trim();
  if (text !== undefined && /^\d+$/.test(text) && Number(text) > MAX_REPLICAS) {
    problems.push(
      `${REPLICAS_ENV}=${JSON.stringify(env[REPLICAS_ENV])}: at most ${MAX_REPLICAS} replicas of the hook server may serve: ${REPLICAS_WHY}`,
    );
    return;
  }
  integer(env, REPLICAS_ENV, 1, 1, MAX_REPLICAS, problems);
}

function unitOf(name: string): string {
  if (name.endsWith('_MS')) return ' (milliseconds, digits only: 8500, not 8.5s)';
  if (name === 'METAOPS_BODY_LIMIT' || name === 'METAOPS_BODY_BUDGET') return ' (bytes)';
  return '';
}

/**
 * A secret from NAME or NAME_FILE. Present but empty (or only white space) is a problem, not "unset": an
 * operator who set it meant to turn authentication on.
 */
function secret(env: NodeJS.ProcessEnv, name: string, problems: string[]): string | undefined {
  const file = env[`${name}_FILE`];
  if (file !== undefined && env[name] !== undefined) {
    problems.push(`${name} and ${name}_FILE are both set: set one`);
    return undefined;
  }
  let value: string | undefined;
  let from = name;
  if (file !== undefined) {
    from = `${name}_FILE=${file}`;
    try {
      value = readFileSync(file, 'utf8');
    } catch (err) {
      problems.push(`${from}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      return undefined;
    }
  } else {
    value = env[name];
  }
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') {
    problems.push(`${from} is empty: set a value, or unset it`);
    return undefined;
  }
  return trimmed;
}

function authSettings(env: NodeJS.ProcessEnv, problems: string[]): AuthConfig {
  const auth: AuthConfig = {};
  const bearer = secret(env, 'METAOPS_AUTH_TOKEN', problems);
  if (bearer !== undefined) {
    if (bearer.length < MIN_TOKEN_LENGTH)
      problems.push(`METAOPS_AUTH_TOKEN is shorter than ${MIN_TOKEN_LENGTH} characters`);
    else if (/\s/.test(bearer)) problems.push('METAOPS_AUTH_TOKEN contains white space');
    // A Bearer token is RFC 6750's token68 (ASCII letters, digits, -._~+/ and trailing =): anything else cannot
    // travel in a header the same way on both sides (a UTF-8 token arrives as latin1 and never matches).
    else if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(bearer))
      problems.push('METAOPS_AUTH_TOKEN must be ASCII letters, digits and -._~+/ (e.g. `openssl rand -hex 32`)');
    else auth.bearer = bearer;
  }
  const basic = secret(env, 'METAOPS_BASIC_AUTH', problems);
  if (basic !== undefined) {
    const at = basic.indexOf(':');
    if (at <= 0 || at === basic.length - 1) problems.push('METAOPS_BASIC_AUTH must be "user:password", both non-empty');
    else auth.basic = { user: basic.slice(0, at), password: basic.slice(at + 1) };
  }
  return auth;
}

/**
 * METAOPS_LABEL_KEY (or its _FILE): the key of the label by which Memcached and EtcdBackup ask for their pods
 * (lib/parent-label.ts reads it); too short a key could be guessed, and the label value computed from it.
 */
function labelKeyProblems(env: NodeJS.ProcessEnv, problems: string[]): void {
  const key = secret(env, LABEL_KEY_ENV, problems);
  if (key !== undefined && key.length < MIN_LABEL_KEY_LENGTH)
    problems.push(
      `${LABEL_KEY_ENV} is shorter than ${MIN_LABEL_KEY_LENGTH} characters (e.g. \`openssl rand -hex 32\`)`,
    );
}

function flag(env: NodeJS.ProcessEnv, name: string, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return false;
  const text = raw.trim().toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  problems.push(`${name}=${JSON.stringify(raw)}: expected true or false`);
  return false;
}

/** The server's TLS (METAOPS_TLS_*): undefined when it serves plain HTTP; every problem said in `problems`. */
function tlsSettings(env: NodeJS.ProcessEnv, problems: string[]): TlsSettings | undefined {
  emptyTlsVariables(env, problems);
  const certFile = env['METAOPS_TLS_CERT_FILE']?.trim() || undefined;
  const keyFile = env['METAOPS_TLS_KEY_FILE']?.trim() || undefined;
  const clientCaFile = env['METAOPS_TLS_CLIENT_CA_FILE']?.trim() || undefined;
  const names = env['METAOPS_TLS_CLIENT_NAMES'];
  if (!certFile && !keyFile) {
    if (clientCaFile) problems.push('METAOPS_TLS_CLIENT_CA_FILE needs METAOPS_TLS_CERT_FILE and METAOPS_TLS_KEY_FILE');
    if (names !== undefined) problems.push('METAOPS_TLS_CLIENT_NAMES needs TLS with METAOPS_TLS_CLIENT_CA_FILE');
    return undefined;
  }
  if (!certFile || !keyFile) {
    problems.push('METAOPS_TLS_CERT_FILE and METAOPS_TLS_KEY_FILE go together: set both or neither');
    return undefined;
  }
  checkTlsFiles(certFile, keyFile, clientCaFile, problems);
  const clientNames = clientNamesOf(names, clientCaFile, problems);
  return {
    certFile,
    keyFile,
    ...(clientCaFile ? { clientCaFile } : {}),
    ...(clientNames && clientNames.length > 0 ? { clientNames } : {}),
  };
}

/** Present but empty is a mistake, not "off": it would serve the token in clear, or turn mTLS off. */
function emptyTlsVariables(env: NodeJS.ProcessEnv, problems: string[]): void {
  for (const name of [
    'METAOPS_TLS_CERT_FILE',
    'METAOPS_TLS_KEY_FILE',
    'METAOPS_TLS_CLIENT_CA_FILE',
    'METAOPS_TLS_CLIENT_NAMES',
  ]) {
    if (env[name] !== undefined && env[name].trim() === '') problems.push(`${name} is empty: set a value, or unset it`);
  }
}

/** METAOPS_TLS_CLIENT_NAMES as a list (unset: undefined), with what is wrong with it said. */
function clientNamesOf(names: string | undefined, clientCaFile: string | undefined, problems: string[]) {
  if (names === undefined) return undefined;
  const clientNames = names
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (!clientCaFile) problems.push('METAOPS_TLS_CLIENT_NAMES needs METAOPS_TLS_CLIENT_CA_FILE');
  if (clientNames.length === 0) problems.push('METAOPS_TLS_CLIENT_NAMES is empty: list the allowed names, or unset it');
  return clientNames;
}

/**
 * The TLS files as TLS will use them, each problem said with its variable: a file that cannot be read, a
 * certificate that is not PEM or a key that is not its key (refused here with its name rather than as a stack trace
 * from listen()), a client CA file without a PEM certificate.
 */
function checkTlsFiles(certFile: string, keyFile: string, clientCaFile: string | undefined, problems: string[]): void {
  const read = (name: string, file: string | undefined): Buffer | undefined => {
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      problems.push(`${name}=${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      return undefined;
    }
  };
  const cert = read('METAOPS_TLS_CERT_FILE', certFile);
  const key = read('METAOPS_TLS_KEY_FILE', keyFile);
  const ca = read('METAOPS_TLS_CLIENT_CA_FILE', clientCaFile);
  if (cert && key) {
    try {
      createSecureContext({ cert, key });
    } catch (err) {
      problems.push(
        `METAOPS_TLS_CERT_FILE and METAOPS_TLS_KEY_FILE cannot be used together: ${(err as Error).message}`,
      );
    }
  }
  if (!ca) return;
  if (!ca.toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
    problems.push(`METAOPS_TLS_CLIENT_CA_FILE=${clientCaFile}: no PEM certificate in the file`);
    return;
  }
  try {
    createSecureContext({ ca });
  } catch (err) {
    problems.push(`METAOPS_TLS_CLIENT_CA_FILE=${clientCaFile}: ${(err as Error).message}`);
  }
}

/** Every setting, checked; throws ConfigError listing every problem at once. */
export function settingsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  operatorProblems: (env: NodeJS.ProcessEnv) => string[] = () => [],
): Settings {
  const problems: string[] = [];
  const port = integer(env, 'PORT', 8080, 1, 65535, problems);
  const host = (env['HOST'] ?? '0.0.0.0').trim();
  if (host === '') problems.push('HOST is empty');
  const logLevel = (env['LOG_LEVEL'] ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL=${JSON.stringify(env['LOG_LEVEL'])}: expected one of ${LOG_LEVELS.join(', ')}`);
  const auth = authSettings(env, problems);
  labelKeyProblems(env, problems);
  const allowUnauthenticated = flag(env, 'METAOPS_ALLOW_UNAUTHENTICATED', problems);
  const bodyLimit = integer(env, 'METAOPS_BODY_LIMIT', DEFAULT_BODY_LIMIT, 1024, MAX_BODY_LIMIT, problems);
  const bodyBudget = integer(
    env,
    'METAOPS_BODY_BUDGET',
    Math.max(DEFAULT_BODY_BUDGET, bodyLimit),
    1024,
    MAX_BODY_BUDGET,
    problems,
  );
  if (bodyBudget < bodyLimit)
    problems.push(
      `METAOPS_BODY_BUDGET=${bodyBudget} is less than METAOPS_BODY_LIMIT=${bodyLimit}: a body at the limit could never be answered`,
    );
  const hookDeadlineMs = integer(
    env,
    'METAOPS_HOOK_DEADLINE_MS',
    DEFAULT_HOOK_DEADLINE_MS,
    MIN_HOOK_DEADLINE_MS,
    MAX_HOOK_DEADLINE_MS,
    problems,
  );
  // Read by the operators' clients (lib/server-replicas.ts replicasOf); a wrong value stops the server here.
  replicasSetting(env, problems);
  const tls = tlsSettings(env, problems);
  problems.push(...operatorProblems(env));
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host,
    logLevel,
    auth,
    allowUnauthenticated,
    bodyLimit,
    bodyBudget,
    hookDeadlineMs,
    ...(tls ? { tls } : {}),
  };
}

/**
 * METAOPS_ALLOW_STATIC_VOLUMES=true lets a claim a custom resource asks for take `storageClassName: ""`: static
 * binding, to any pre-made PersistentVolume without a class that fits, whoever made it (another namespace's Released
 * or Available volume, with its data). Off by default: a cluster admin turns it on where the pre-made volumes are
 * managed for the tenants (or there is one tenant). A named volume or a label selector stays refused either way.
 */
export const STATIC_VOLUMES_ENV = 'METAOPS_ALLOW_STATIC_VOLUMES';

/** Whether static binding is allowed (a value other than true/1/false/0 is a start-up problem, and false here). */
export function staticVolumesAllowed(env: NodeJS.ProcessEnv): boolean {
  return flag(env, STATIC_VOLUMES_ENV, []);
}

/** What is wrong with METAOPS_ALLOW_STATIC_VOLUMES (the server refuses to start). */
export function staticVolumesProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  flag(env, STATIC_VOLUMES_ENV, problems);
  return problems;
}

/**
 * METAOPS_ETCD_ALLOW_REFERENCES=true lets an EtcdCluster's spec name other objects of its namespace for its members to
 * take: `spec.pod.etcdEnv[].valueFrom.secretKeyRef` / `configMapKeyRef` (a Secret's or ConfigMap's value handed to
 * the member container, which runs the spec's own image) and `spec.pod.persistentVolumeClaimSpec.dataSource` /
 * `dataSourceRef` (every member volume filled from a claim or VolumeSnapshot). Metacontroller makes the members with
 * its own rights, so nothing checks that the EtcdCluster's author may read what the spec names. Off by default
 * (InvalidSpec naming the field): a cluster admin turns it on where whoever may create an EtcdCluster may read the
 * namespace's Secrets, ConfigMaps and volumes anyway.
 */
export const ETCD_REFERENCES_ENV = 'METAOPS_ETCD_ALLOW_REFERENCES';

/** Whether an EtcdCluster may name Secrets, ConfigMaps and volume sources (false on a value not true/1/false/0). */
export function etcdReferencesAllowed(env: NodeJS.ProcessEnv): boolean {
  return flag(env, ETCD_REFERENCES_ENV, []);
}

/** What is wrong with METAOPS_ETCD_ALLOW_REFERENCES (the server refuses to start). */
export function etcdReferencesProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  flag(env, ETCD_REFERENCES_ENV, problems);
  return problems;
}

/** The refusal of a claim's `storageClassName: ""`, named by its field, and how an administrator allows it. */
export function staticVolumeRefusal(field: string): string {
  return `${field} "" is not allowed: a claim with no class binds any pre-made PersistentVolume that fits, whoever made it; name a StorageClass, or leave the field out for the default one (a cluster admin may allow static binding with ${STATIC_VOLUMES_ENV}=true)`;
}

/**
 * METAOPS_SERVER_NAMESPACE: the namespace the hook server's own pods run in (the shipped Deployment and the Helm chart
 * set it from the pod's own namespace, the downward API's `metadata.namespace`). The hooks that dial pods of a
 * tenant's namespace let the server's pods in by it where the namespace's own NetworkPolicies govern those pods'
 * ingress (an EtcdCluster's members' client port: hooks/etcdcluster/network.ts). Unset: no such rule, and the status
 * says so.
 */
export const SERVER_NAMESPACE_ENV = 'METAOPS_SERVER_NAMESPACE';

/**
 * The labels every pod of the hook server carries (manifests/deploy/deployment.yaml's pod template, which the Helm
 * chart renders unchanged): the pods a NetworkPolicy lets in as the server's, in METAOPS_SERVER_NAMESPACE.
 */
export const SERVER_POD_LABELS: Readonly<Record<string, string>> = Object.freeze({
  'app.kubernetes.io/name': 'metaops',
  'app.kubernetes.io/component': 'hooks',
});

const NAMESPACE_NAME = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** METAOPS_SERVER_NAMESPACE, trimmed, or undefined when unset, empty or not a namespace's name. */
export function serverNamespaceOf(env: NodeJS.ProcessEnv): string | undefined {
  const text = (env[SERVER_NAMESPACE_ENV] ?? '').trim();
  return NAMESPACE_NAME.test(text) ? text : undefined;
}

/** What is wrong with METAOPS_SERVER_NAMESPACE (the server refuses to start): set, but not a namespace's name. */
export function serverNamespaceProblems(env: NodeJS.ProcessEnv): string[] {
  const raw = env[SERVER_NAMESPACE_ENV];
  if (raw === undefined || raw.trim() === '' || serverNamespaceOf(env) !== undefined) return [];
  return [`${SERVER_NAMESPACE_ENV}=${JSON.stringify(raw)}: expected the name of a namespace (a DNS label)`];
}
