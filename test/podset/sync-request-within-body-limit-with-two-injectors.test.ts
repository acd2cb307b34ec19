// A PodSet's first pods are made before the hook has seen any of them as stored: each is counted with an allowance
// for what an admission webhook may add (lib/budget.ts INJECTED_POD_BYTES), and only as many are made as fit so.
// A namespace may have more than one injector: Istio's sidecar (test/fixtures/sidecars.ts) and HashiCorp Vault's
// agent (an init container and a sidecar, each carrying the agent's configuration as base64 in VAULT_CONFIG, three
// volumes, an annotation), as a mesh with secrets delivered by Vault has. The sync after the first batch carries those
// pods as stored, twice over while the customize answer Metacontroller keeps was asked with no status (a new PodSet):
// if it is past the body limit, the hook server refuses it (413) and every one after it, no status is ever written
// and nothing says why. The first batch must leave that sync within the limit.
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { withIstioSidecar } from '../fixtures/sidecars.js';
import { podsetRounds, podsetSyncRequest, sentBytes, storedPod } from '../fixtures/stored-objects.js';

const VAULT_IMAGE = 'hashicorp/vault:1.18.3';
const CREATED = '2026-01-02T03:00:00Z';

/** Vault agent's configuration as its injector writes it (auto_auth by the pod's service account, one template). */
function vaultConfig(role: string, init: boolean): string {
  const config = {
    auto_auth: {
      method: {
        type: 'kubernetes',
        mount_path: 'auth/kubernetes',
        config: { role, token_path: '/var/run/secrets/kubernetes.io/serviceaccount/token' },
      },
      sink: [{ type: 'file', config: { path: '/home/vault/.vault-token' } }],
    },
    exit_after_auth: init,
    pid_file: '/home/vault/.pid',
    vault: { address: 'https://vault.vault.svc:8200', ca_cert: '/vault/tls/ca.crt' },
    template: [
      {
        destination: '/vault/secrets/database',
        contents:
          '{{- with secret "database/creds/app" -}}\npostgresql://{{ .Data.username }}:{{ .Data.password }}@postgres.shop.svc:5432/app?sslmode=verify-full\n{{- end }}\n',
        left_delimiter: '{{',
        right_delimiter: '}}',
      },
      {
        destination: '/vault/secrets/api-keys',
        contents:
          '{{- with secret "kv/data/shop/api" -}}\n{{ range $k, $v := .Data.data }}export {{ $k }}="{{ $v }}"\n{{ end }}{{- end }}\n',
        left_delimiter: '{{',
        right_delimiter: '}}',
      },
    ],
    template_config: { exit_on_retry_failure: true },
  };
  return Buffer.from(JSON.stringify(config)).toString('base64');
}

function agent(name: string, init: boolean, token: string) {
  return {
    name,
    image: VAULT_IMAGE,
    command: ['/bin/sh', '-ec'],
    args: [
      'echo ${VAULT_CONFIG?} | base64 -d > /home/vault/config.json && vault agent -config=/home/vault/config.json',
    ],
    env: [
      { name: 'NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
      { name: 'HOST_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.hostIP' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
      { name: 'VAULT_LOG_LEVEL', value: 'info' },
      { name: 'VAULT_LOG_FORMAT', value: 'standard' },
      { name: 'VAULT_CONFIG', value: vaultConfig('shop-web', init) },
    ],
    resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      readOnlyRootFilesystem: true,
      runAsGroup: 1000,
      runAsNonRoot: true,
      runAsUser: 100,
    },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    volumeMounts: [
      { mountPath: '/home/vault', name: init ? 'home-init' : 'home-sidecar' },
      { mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: token, readOnly: true },
      { mountPath: '/vault/secrets', name: 'vault-secrets' },
    ],
  };
}

/** A pod with Istio's sidecar, then Vault's agent injected (init container, sidecar, volumes, annotation). */
function withVaultAgent(stored: KubeObject): KubeObject {
  const pod = structuredClone(stored) as unknown as {
    metadata: Record<string, any>;
    spec: Record<string, any>;
    status: Record<string, any>;
  };
  const token = String(pod.spec['volumes'].find((v: any) => String(v.name).startsWith('kube-api-access-')).name);
  const init = agent('vault-agent-init', true, token);
  const sidecar = agent('vault-agent', false, token);
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    'vault.hashicorp.com/agent-inject-status': 'injected',
  };
  pod.spec['initContainers'] = [...(pod.spec['initContainers'] ?? []), init];
  pod.spec['containers'] = [...pod.spec['containers'], sidecar];
  pod.spec['volumes'] = [
    ...pod.spec['volumes'],
    { name: 'home-init', emptyDir: { medium: 'Memory' } },
    { name: 'home-sidecar', emptyDir: { medium: 'Memory' } },
    { name: 'vault-secrets', emptyDir: { medium: 'Memory' } },
  ];
  const status = (name: string, id: string, state: Record<string, unknown>) => ({
    containerID: `containerd://${id.repeat(64)}`,
    image: `docker.io/${VAULT_IMAGE}`,
    imageID: `docker.io/hashicorp/vault@sha256:${'c'.repeat(64)}`,
    lastState: {},
    name,
    ready: !('terminated' in state),
    restartCount: 0,
    started: !('terminated' in state),
    state,
  });
  pod.status['containerStatuses'] = [
    ...pod.status['containerStatuses'],
    status('vault-agent', '6', { running: { startedAt: CREATED } }),
  ];
  pod.status['initContainerStatuses'] = [
    ...(pod.status['initContainerStatuses'] ?? []),
    status('vault-agent-init', '5', {
      terminated: {
        containerID: `containerd://${'5'.repeat(64)}`,
        exitCode: 0,
        finishedAt: CREATED,
        reason: 'Completed',
        startedAt: CREATED,
      },
    }),
  ];
  return pod as unknown as KubeObject;
}

const injected = (pod: KubeObject, parent: ParentObject, i: number) =>
  withVaultAgent(withIstioSidecar(storedPod(pod, parent, i)));

/** The largest of the sync requests with these pods, whatever status the customize answer kept was asked with. */
function largestRequest(parent: ParentObject, pods: KubeObject[]): number {
  const lost = { ...parent, status: {} } as ParentObject;
  return Math.max(
    ...[
      [parent, parent],
      [lost, lost],
      [lost, parent],
    ].map(([asked, now]) => sentBytes(podsetSyncRequest(asked!, now!, pods).body)),
  );
}

t.test('a 1000-pod PodSet whose pods two injectors grow: every sync request within the body limit', async (t) => {
  const req = request('podset', { size: 1000, image: 'busybox:1.36', command: ['sleep', '3600'] });
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop' };
  const rounds = podsetRounds(req, FIXED_NOW, injected);
  t.comment(`a pod as stored: ${sentBytes(rounds[0]!.pods[0])} bytes`);
  for (const [i, round] of rounds.entries()) {
    const bytes = largestRequest(round.parent, round.pods);
    t.ok(
      bytes <= DEFAULT_BODY_LIMIT,
      `sync ${i + 2}: ${round.pods.length} pods stored, the largest request ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
    );
  }
});
