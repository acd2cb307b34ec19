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
import { FIXED_NOW } from '../fixtures/requests.js';
import { withVaultAgent } from '../fixtures/sidecars.js';
import { largestPodsetRequest, podsetRounds, sentBytes } from '../fixtures/stored-objects.js';
import { BUSYBOX, injected, podsetRequest } from './syncs.js';

/** Istio's sidecar, then Vault's agent. */
const injectedTwice = (pod: KubeObject, parent: ParentObject, i: number) => withVaultAgent(injected(pod, parent, i));

t.test('a 1000-pod PodSet whose pods two injectors grow: every sync request within the body limit', async (t) => {
  const rounds = podsetRounds(podsetRequest({ size: 1000, ...BUSYBOX }), FIXED_NOW, injectedTwice);
  t.comment(`a pod as stored: ${sentBytes(rounds[0]!.pods[0])} bytes`);
  for (const [i, round] of rounds.entries()) {
    const bytes = largestPodsetRequest(round.parent, round.pods);
    t.ok(
      bytes <= DEFAULT_BODY_LIMIT,
      `sync ${i + 2}: ${round.pods.length} pods stored, the largest request ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
    );
  }
});
