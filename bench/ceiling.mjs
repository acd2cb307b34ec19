// The ceiling: a bare Fastify route that returns a precomputed body of the same size as a hook's answer.
// Anything the hooks do costs what separates them from this.
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.env.BODY_FILE, 'utf8');
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
app.post('/ceiling', async (_request, reply) =>
  reply.header('content-type', 'application/json; charset=utf-8').send(body),
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
