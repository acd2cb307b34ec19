// The toy operator's definition: its spec, its child, its own client (a translator) and setting (a language),
// and its decision. Nothing in lib/ knows it.
import { TemporaryError, conditionsFor, defineComposite, specParser } from '../../lib/index.js';
import { GreetingSpec, resource } from './schema.js';

/** The toy's client: a translation service. */
export interface Translator {
  translate(text: string, language: string, signal: AbortSignal): Promise<string>;
}

/** The toy's real translator: says everything as it is. */
const identity: Translator = { translate: async (text) => text };

export const greeting = defineComposite({
  name: 'greeting',
  resource,
  spec: specParser(GreetingSpec),
  parentProblem: (parent) => (parent.metadata.name === 'nameless' ? 'a Greeting needs a real name' : undefined),
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 1024 + 4 * spec.message.length + 4 * (parent.metadata.name ?? '').length,
      what: 'a ConfigMap',
    }),
    advice: 'shorten spec.message',
  },
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'configmaps',
      updateStrategy: { method: 'InPlace' },
      why: 'a message changes in place',
    },
  ],
  clients: () => ({ translator: (): Translator => identity }),
  settings: ({ env }) => ({ language: env['TOY_LANGUAGE'] ?? 'en' }),
  configProblems: (env) =>
    env['TOY_LANGUAGE'] !== undefined && !/^[a-z]{2}$/.test(env['TOY_LANGUAGE'])
      ? [`TOY_LANGUAGE=${env['TOY_LANGUAGE']}: expected two letters`]
      : [],
  sync: async ({ parent, spec, now, signal, clients, settings }) => {
    // The client first, outside the try: a caller that may not use it is refused (401), not a failed translation.
    const translator = clients.translator();
    let said: string;
    try {
      said = await translator.translate(spec.message, settings.language, signal);
    } catch (err) {
      throw new TemporaryError('TranslatorDown', `the translator failed: ${(err as Error).message}`, {
        retryAfterSeconds: 7,
      });
    }
    if (spec.shout) said = said.toUpperCase();
    const name = parent.metadata.name!;
    return {
      status: {
        said,
        conditions: conditionsFor(parent, [{ type: 'Ready', status: true, reason: 'Said', message: said }], now),
      },
      children: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: parent.metadata.namespace ?? 'default' },
          data: { message: said },
        },
      ],
    };
  },
});
