import { creditAtConfirmation, teamDecision } from './referral-credit';

describe(creditAtConfirmation.name, () => {
  it('credits a referral no signal holds against, at once or after its waiting period', () => {
    expect(creditAtConfirmation([], false)).toEqual({ state: 'credited', reasons: [] });
    expect(creditAtConfirmation([], true)).toEqual({ state: 'pending', reasons: ['waiting_period'] });
  });

  it('withholds it with every signal that holds, in one order, whether or not it would wait', () => {
    expect(creditAtConfirmation(['too_fast', 'disposable_domain'], true)).toEqual({ state: 'withheld', reasons: ['disposable_domain', 'too_fast'] });
  });
});

describe(teamDecision.name, () => {
  it('grants a withheld referral, keeping why it was withheld, and counts it', () => {
    expect(teamDecision({ state: 'withheld', reasons: ['network_velocity'] }, 'grant')).toEqual({ state: 'credited', reasons: ['network_velocity', 'granted_by_team'], credits: 1 });
  });

  it('revokes a credited referral and takes its count back; a pending one loses nothing counted', () => {
    expect(teamDecision({ state: 'credited', reasons: ['network_velocity', 'granted_by_team'] }, 'revoke')).toEqual({ state: 'withheld', reasons: ['network_velocity', 'revoked_by_team'], credits: -1 });
    expect(teamDecision({ state: 'pending', reasons: ['waiting_period'] }, 'revoke')).toEqual({ state: 'withheld', reasons: ['revoked_by_team'], credits: 0 });
  });

  it('marks a withheld referral revoked (reviewed) without a change of count', () => {
    expect(teamDecision({ state: 'withheld', reasons: ['too_fast'] }, 'revoke')).toEqual({ state: 'withheld', reasons: ['too_fast', 'revoked_by_team'], credits: 0 });
  });

  it('changes nothing when it is done already', () => {
    expect(teamDecision({ state: 'credited', reasons: [] }, 'grant')).toBeNull();
    expect(teamDecision({ state: 'withheld', reasons: ['revoked_by_team'] }, 'revoke')).toBeNull();
  });

  it('grants a pending referral at once, its wait over', () => {
    expect(teamDecision({ state: 'pending', reasons: ['waiting_period'] }, 'grant')).toEqual({ state: 'credited', reasons: ['granted_by_team'], credits: 1 });
  });
});
