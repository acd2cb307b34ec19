// A small Kubernetes API client for what Metacontroller cannot do for a hook (the pods/ephemeralcontainers
// subresource). In a cluster it uses the pod's service account; elsewhere the current context of KUBECONFIG
// (server, CA or insecure-skip-tls-verify, bearer token or client certificate).
import { readFileSync } from 'node:fs';
import { call, type CallOptions } from './http.js';

export interface KubeApi {
  /** Adds ephemeral containers to a pod (strategic merge by name on the ephemeralcontainers subresource). */
  addEphemeralContainers(namespace: string, pod: string, containers: Array<Record<string, unknown>>): Promise<void>;
}

export class KubeError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Connection {
  server: string;
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  token?: string;
  insecure?: boolean;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function fromServiceAccount(): Connection | undefined {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) return undefined;
  try {
    return {
      server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
      ca: readFileSync(`${SA_DIR}/ca.crt`),
      token: readFileSync(`${SA_DIR}/token`, 'utf8').trim(),
    };
  } catch {
    return undefined;
  }
}

function data(value: unknown, file: unknown): Buffer | undefined {
  if (typeof value === 'string') return Buffer.from(value, 'base64');
  if (typeof file === 'string') return readFileSync(file);
  return undefined;
}

/** The connection a kubeconfig's current context names (the YAML parser is loaded only when one is used). */
export async function fromKubeconfig(path: string): Promise<Connection> {
  const { default: YAML } = await import('yaml');
  const cfg = YAML.parse(readFileSync(path, 'utf8')) as any;
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts ?? []).find((c: any) => c.name === ctxName)?.context ?? cfg.contexts?.[0]?.context;
  const cluster = (cfg.clusters ?? []).find((c: any) => c.name === ctx?.cluster)?.cluster;
  const user = (cfg.users ?? []).find((u: any) => u.name === ctx?.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`kubeconfig ${path}: no server for context ${ctxName}`);
  const conn: Connection = { server: cluster.server };
  const ca = data(cluster['certificate-authority-data'], cluster['certificate-authority']);
  if (ca) conn.ca = ca;
  if (cluster['insecure-skip-tls-verify']) conn.insecure = true;
  if (user.token) conn.token = user.token;
  const cert = data(user['client-certificate-data'], user['client-certificate']);
  const key = data(user['client-key-data'], user['client-key']);
  if (cert) conn.cert = cert;
  if (key) conn.key = key;
  return conn;
}

export class HttpKubeApi implements KubeApi {
  private conn: Connection | undefined;

  constructor(
    private readonly timeoutMs = 3000,
    conn?: Connection,
  ) {
    this.conn = conn;
  }

  private async connection(): Promise<Connection> {
    if (this.conn) return this.conn;
    const kubeconfig = process.env['KUBECONFIG'];
    const conn = kubeconfig ? await fromKubeconfig(kubeconfig.split(':')[0]!) : fromServiceAccount();
    if (!conn) throw new KubeError(0, 'no Kubernetes API: neither KUBECONFIG nor an in-cluster service account');
    this.conn = conn;
    return conn;
  }

  async addEphemeralContainers(namespace: string, pod: string, containers: Array<Record<string, unknown>>): Promise<void> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/ephemeralcontainers`;
    await this.call('PATCH', path, { spec: { ephemeralContainers: containers } }, 'application/strategic-merge-patch+json');
  }

  private async call(method: string, path: string, body: unknown, contentType: string): Promise<unknown> {
    const conn = await this.connection();
    const tls: NonNullable<CallOptions['tls']> = { rejectUnauthorized: !conn.insecure };
    if (conn.ca) tls.ca = conn.ca;
    if (conn.cert) tls.cert = conn.cert;
    if (conn.key) tls.key = conn.key;
    const res = await call(new URL(path, conn.server), {
      method,
      headers: {
        'content-type': contentType,
        accept: 'application/json',
        ...(conn.token ? { authorization: `Bearer ${conn.token}` } : {}),
      },
      body: JSON.stringify(body),
      timeoutMs: this.timeoutMs,
      tls,
      timeoutError: () => new KubeError(0, `${method} ${path}: no answer within ${this.timeoutMs} ms`),
    });
    let parsed: any;
    try {
      parsed = JSON.parse(res.body);
    } catch {
      parsed = { message: res.body.slice(0, 300) };
    }
    if (res.status >= 200 && res.status < 300) return parsed;
    throw new KubeError(res.status, `${method} ${path}: ${res.status} ${parsed?.message ?? ''}`.trim());
  }
}
