// lib's services for a running server (lib/hook.ts Services): the clock, randomness, the Kubernetes API and
// Events. Operators' own clients come from their definitions (`clients`), never from here.
import { randomBytes } from 'node:crypto';
import { KubeEventRecorder, type EventRecorder } from './events.js';
import type { Services } from './hook.js';
import { HttpKubeApi, type KubeApi } from './kube.js';

export function defaultServices(): Services {
  let kube: KubeApi | undefined;
  let events: EventRecorder | undefined;
  const services: Services = {
    now: () => new Date(),
    randomSecret: (bytes) => randomBytes(bytes).toString('base64url'),
    kube: () => (kube ??= new HttpKubeApi()),
    // Events go through services.kube(): the app's (instrumented) one when the app replaces it.
    events: () => (events ??= new KubeEventRecorder(() => services.kube())),
  };
  return services;
}
