import { CursorCodec } from './cursor';

describe(CursorCodec.name, () => {
  const codec = new CursorCodec(Buffer.alloc(32, 1));
  const position = { createdAt: new Date('2026-11-22T10:00:00.123Z'), id: 'ent_abc' };

  it('gives back the position it encoded for the same context', () => {
    const cursor = codec.encode(position, 'prod_1|live|');
    expect(codec.decode(cursor, 'prod_1|live|')).toEqual(position);
  });

  it('refuses a cursor issued for another listing', () => {
    const cursor = codec.encode(position, 'prod_1|live|');
    expect(codec.decode(cursor, 'prod_1|test|')).toBeNull();
    expect(codec.decode(cursor, 'prod_2|live|')).toBeNull();
    expect(codec.decode(cursor, 'prod_1|live|confirmed')).toBeNull();
  });

  it('refuses a changed or made-up cursor', () => {
    const cursor = codec.encode(position, 'ctx');
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify([position.createdAt.getTime() + 1, position.id])).toString('base64url');
    expect(codec.decode(`${forged}.${signature}`, 'ctx')).toBeNull();
    const changed = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
    expect(codec.decode(`${payload}.${changed}`, 'ctx')).toBeNull();
    expect(codec.decode(`${payload}.${signature}.x`, 'ctx')).toBeNull();
    expect(codec.decode('made-up', 'ctx')).toBeNull();
    expect(codec.decode('', 'ctx')).toBeNull();
    expect(new CursorCodec(Buffer.alloc(32, 2)).decode(cursor, 'ctx')).toBeNull();
  });

  it('takes, after a key rotation, the cursors signed with a key still in the ring', () => {
    const before = codec.encode(position, 'ctx');
    const ring = new CursorCodec([Buffer.alloc(32, 2), Buffer.alloc(32, 1)]);
    expect(ring.decode(before, 'ctx')).toEqual(position);
    expect(new CursorCodec(Buffer.alloc(32, 2)).decode(ring.encode(position, 'ctx'), 'ctx')).toEqual(position);
  });
});
