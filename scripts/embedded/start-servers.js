// Starts the embedded servers (host.js) for npm start and npm test, and stops them.
'use strict';
const { fork } = require('node:child_process');
const path = require('node:path');

class EmbeddedServersError extends Error {}

/**
 * @param {{dataDir: string, postgres: boolean, redis: boolean, persistent: boolean}} options
 * @returns {Promise<{databaseUrl?: string, redisUrl?: string, pid: number, stop(): Promise<void>}>}
 */
function startEmbeddedServers(options) {
  // A process group of its own: the terminal's Ctrl-C reaches the supervisor, which stops the apps first.
  const host = fork(path.join(__dirname, 'host.js'), [JSON.stringify(options)], { detached: true, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise((resolve) => host.once('exit', resolve));
  const stop = async () => {
    if (host.connected) host.send('stop');
    await exited;
  };
  return new Promise((resolve, reject) => {
    host.once('message', (message) => {
      if (message.ready) resolve({ ...message.ready, pid: host.pid, stop });
      else reject(new EmbeddedServersError(message.error));
    });
    // The channel closes after its last message is read, which the exit can overtake: a refusal the
    // host sent just before it exited is still the answer.
    host.once('disconnect', () => exited.then((code) => reject(new EmbeddedServersError(`The embedded servers stopped at start (exit code ${code}).`))));
  });
}

module.exports = { startEmbeddedServers, EmbeddedServersError };
