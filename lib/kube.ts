// A small Kubernetes API client for what Metacontroller cannot do for a hook (the pods/ephemeralcontainers
// subresource). In a cluster it uses the pod's service account; elsewhere the current context of KUBECONFIG
// (server, CA or insecure-skip-tls-verify, bearer token or client certificate).
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import YAML from 'yaml';

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

export function fromKubeconfig(path: string): Connection {
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

  private connection(): Connection {
    if (this.conn) return this.conn;
    const kubeconfig = process.env['KUBECONFIG'];
    const conn = kubeconfig ? fromKubeconfig(kubeconfig.split(':')[0]!) : fromServiceAccount();
    if (!conn) throw new KubeError(0, 'no Kubernetes API: neither KUBECONFIG nor an in-cluster service account');
    this.conn = conn;
    return conn;
  }

  async addEphemeralContainers(namespace: string, pod: string, containers: Array<Record<string, unknown>>): Promise<void> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/ephemeralcontainers`;
    await this.call('PATCH', path, { spec: { ephemeralContainers: containers } }, 'application/strategic-merge-patch+json');
  }

  private call(method: string, path: string, body: unknown, contentType: string): Promise<unknown> {
    const conn = this.connection();
    const url = new URL(path, conn.server);
    const payload = JSON.stringify(body);
    const doRequest = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = doRequest(
        url,
        {
          method,
          timeout: this.timeoutMs,
          headers: {
            'content-type': contentType,
            'content-length': Buffer.byteLength(payload),
            accept: 'application/json',
            ...(conn.token ? { authorization: `Bearer ${conn.token}` } : {}),
          },
          ...(conn.ca ? { ca: conn.ca } : {}),
          ...(conn.cert ? { cert: conn.cert } : {}),
          ...(conn.key ? { key: conn.key } : {}),
          rejectUnauthorized: !conn.insecure,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: any;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = { message: text.slice(0, 300) };
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(parsed);
            else reject(new KubeError(status, `${method} ${path}: ${status} ${parsed?.message ?? ''}`.trim()));
          });
        },
      );
      const timer = setTimeout(() => req.destroy(new KubeError(0, `${method} ${path}: no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      req.on('close', () => clearTimeout(timer));
      req.on('error', reject);
      req.end(payload);
    });
  }
}
