// Preloaded (`node --import`) into Metacontroller's Node example server (examples/nodejs/server.js), which listens on
// port 80: it listens on $PORT of 127.0.0.1 instead, so that bench/example.ts runs the example's code as it is
// published, from a scratch folder, on a free port. The example's own code is never part of this repository.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, ...rest) {
  return listen.call(this, port === 80 ? Number(process.env.PORT) : port, '127.0.0.1', ...rest);
};
