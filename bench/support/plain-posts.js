const { request } = require('undici');

/**
 * The deliveries benchmark's baseline, in a process of its own as the webhooks app is: it is handed
 * requests ({ body, headers }), a URL and a concurrency, answers 'loaded', then on 'go' POSTs them
 * all with plain undici and answers 'done'. The benchmark times 'go' to 'done'.
 */
let work;
process.on('message', async (message) => {
  if (message.type === 'load') {
    work = message;
    process.send({ type: 'loaded' });
    return;
  }
  if (message.type !== 'go') return;
  let next = 0;
  await Promise.all(
    Array.from({ length: work.concurrency }, async () => {
      while (next < work.requests.length) {
        const { body, headers } = work.requests[next++];
        const response = await request(work.url, { method: 'POST', body, headers });
        await response.body.dump();
        if (response.statusCode !== 200) throw new Error(`The receiver answered ${response.statusCode}`);
      }
    }),
  );
  process.send({ type: 'done' });
});
