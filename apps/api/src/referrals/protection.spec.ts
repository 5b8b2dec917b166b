import { changedRules, LEVEL_DEFAULTS, protectionOf, rulesAsText } from './protection';

describe(protectionOf.name, () => {
  it("gives the level's defaults where the team set nothing", () => {
    expect(protectionOf('standard', {})).toEqual(LEVEL_DEFAULTS.standard);
    expect(protectionOf('strict', {})).toEqual(LEVEL_DEFAULTS.strict);
  });

  it("puts the team's thresholds over the level's", () => {
    expect(protectionOf('standard', { velocityLimit: 2, waitingFor: 'invited', blockedDomains: ['spam.example'] })).toEqual({
      ...LEVEL_DEFAULTS.standard,
      velocityLimit: 2,
      waitingFor: 'invited',
      blockedDomains: ['spam.example'],
    });
  });

  it('checks nothing beyond SPEC.md while off, whatever the team set', () => {
    expect(protectionOf('off', { velocityLimit: 1, tooFastSeconds: 60, burstPerHour: 3, waitingDays: 9, blockedDomains: ['spam.example'] })).toEqual(LEVEL_DEFAULTS.off);
    expect(LEVEL_DEFAULTS.off).toMatchObject({ disposableDomains: false, velocityLimit: 0, tooFastSeconds: 0, burstPerHour: 0, waitingDays: 0, waitingFor: 'confirmed' });
  });

  it('caps no burst at any level unless the team sets one', () => {
    expect([LEVEL_DEFAULTS.standard.burstPerHour, LEVEL_DEFAULTS.strict.burstPerHour]).toEqual([0, 0]);
    expect(protectionOf('standard', { burstPerHour: 30 }).burstPerHour).toBe(30);
  });
});

describe(changedRules.name, () => {
  it('sets what is given, keeps what is not, and forgets what is null or empty', () => {
    expect(changedRules({ velocityLimit: 2, tooFastSeconds: 9, blockedDomains: ['a.example'] }, { velocityLimit: 4, tooFastSeconds: null, blockedDomains: [] })).toEqual({ velocityLimit: 4 });
    expect(changedRules({ velocityLimit: 2, waitingFor: 'invited' }, { velocityLimit: null, waitingFor: undefined })).toEqual({ waitingFor: 'invited' });
  });
});

describe(rulesAsText.name, () => {
  it('shows each threshold as the form holds it, empty for the default', () => {
    expect(rulesAsText({ velocityLimit: 2, burstPerHour: 30, blockedDomains: ['a.example', 'b.example'] })).toMatchObject({ velocityLimit: '2', tooFastSeconds: '', burstPerHour: '30', blockedDomains: 'a.example\nb.example', waitingFor: '' });
  });
});
