// What an operator's tests may use beside lib/index.ts: its hooks called without HTTP, with a fixed clock, clients
// and services (lib/operator.ts), and a log that writes nothing.
export { runHook, runPure, silentLog, type RunOptions } from './operator.js';
