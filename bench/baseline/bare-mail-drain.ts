import { mailDrain } from './mail-drain';

/**
 * The confirmation-drain benchmark's second baseline: the bare durable drain (mail-drain.ts) of one
 * backlog. Run forked (dist/bench/baseline) with DATABASE_URL, SMTP_URL, PUBLIC_BASE_URL, a process per
 * backlog as the mailer starts for its own; it answers { type: 'ready' } and, on { type: 'go', queue },
 * drains that outbox queue and answers { type: 'done', sent } (or { type: 'failed' }); on { type: 'end' } it exits.
 */
const { db, transport, drain } = mailDrain(process.env as { DATABASE_URL: string; SMTP_URL: string; PUBLIC_BASE_URL: string });

process.on('message', (message: { type: string; queue: string }) => {
  if (message.type === 'go') {
    drain(message.queue).then(
      (sent) => process.send!({ type: 'done', sent }),
      (error: Error) => process.send!({ type: 'failed', message: error.message }),
    );
  } else if (message.type === 'end') {
    // Told once its CPU was read, so that its PostgreSQL backends are still there to be counted; then it
    // exits of itself (a --cpu-prof profile is written at exit).
    transport.close();
    void db.end().then(() => process.disconnect());
  }
});
process.send!({ type: 'ready' });
