// bind-localhost.cjs: every TCP server of this Node process listens on 127.0.0.1 only.
//
//   node --require tests/support/node/bind-localhost.cjs script.js
//   NODE_OPTIONS="--require /abs/path/tests/support/node/bind-localhost.cjs" node script.js
//
// The conformance harness's mock servers call listen(0) with no host, i.e. on every interface;
// the tests must never listen beyond loopback. Every form of net.Server#listen (port, options,
// host names, and the http/https servers and express's app.listen that inherit it) ends in
// net.Server.prototype._listen2(address, port, addressType, backlog, fd, flags) once the address
// is known; that is where the address becomes 127.0.0.1, for CommonJS and ESM entry points alike
// (the preload runs before the ESM loader starts).
//
// Why there and not in listen(): listen(0) with no host binds synchronously, and callers (the
// harness too) read server.address().port right after it; passing a host to listen() would defer
// the bind behind a DNS lookup and make address() null at that point.
//
// Unix sockets and named pipes (port -1) and inherited fds/handles are left alone. Fail closed:
// a Node without _listen2 refuses to start, and a server that still ends up listening on a
// non-loopback address makes the process exit with code 70.
// TASKSCOPE_BIND_LOCALHOST_VERBOSE=1 prints one stderr line per listen.
'use strict';

const net = require('net');

const HOST = '127.0.0.1';
const VERBOSE = process.env.TASKSCOPE_BIND_LOCALHOST_VERBOSE === '1';
const originalListen = net.Server.prototype.listen;
const originalListen2 = net.Server.prototype._listen2;

if (typeof originalListen2 !== 'function') {
  process.stderr.write(
    `[bind-localhost] this Node (${process.version}) has no net.Server.prototype._listen2; ` +
      'refusing to run servers that could listen beyond loopback\n',
  );
  process.exit(70);
}

function isLoopback(address) {
  return address === '::1' || /^127\./.test(address) || /^::ffff:127\./.test(address);
}

function say(text) {
  if (VERBOSE) process.stderr.write(`[bind-localhost] ${text}\n`);
}

net.Server.prototype._listen2 = function listenOnLoopback(address, port, addressType, ...rest) {
  const isTcp = typeof port === 'number' && port >= 0;
  const fd = rest[1];
  const inherited = typeof fd === 'number' && fd >= 0;
  if (isTcp && !inherited && !(typeof address === 'string' && isLoopback(address))) {
    say(`listen on port ${port}: host ${address === null ? '(none)' : address} -> ${HOST}`);
    return originalListen2.call(this, HOST, port, 4, ...rest);
  }
  return originalListen2.call(this, address, port, addressType, ...rest);
};

net.Server.prototype.listen = function listenCheckingLoopback(...args) {
  this.once('listening', () => {
    const bound = this.address();
    if (bound !== null && typeof bound === 'object' && !isLoopback(bound.address)) {
      process.stderr.write(
        `[bind-localhost] refusing to listen on ${bound.address}:${bound.port}; exiting\n`,
      );
      process.exit(70);
    }
  });
  return originalListen.apply(this, args);
};
