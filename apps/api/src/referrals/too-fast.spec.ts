import { tooFast } from './too-fast';

describe(tooFast.name, () => {
  const mailed = new Date('2026-11-25T10:00:00.000Z');
  const after = (ms: number) => new Date(mailed.getTime() + ms);

  it('is a confirmation within the seconds after the mail', () => {
    expect(tooFast(mailed, after(1000), 5)).toBe(true);
    expect(tooFast(mailed, after(4999), 5)).toBe(true);
    expect(tooFast(mailed, after(5000), 5)).toBe(false);
    expect(tooFast(mailed, after(60_000), 5)).toBe(false);
  });

  it('is never at 0 seconds', () => {
    expect(tooFast(mailed, mailed, 0)).toBe(false);
  });
});
