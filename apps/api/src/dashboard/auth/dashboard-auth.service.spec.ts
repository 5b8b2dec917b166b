import { DashboardAuthService } from './dashboard-auth.service';

describe(DashboardAuthService.name, () => {
  const token = 'a'.repeat(43);

  it('csrfMatches holds only for the same non-empty token', () => {
    expect(DashboardAuthService.csrfMatches(token, token)).toBe(true);
    expect(DashboardAuthService.csrfMatches(token, 'b'.repeat(43))).toBe(false);
    expect(DashboardAuthService.csrfMatches(token, token.slice(1))).toBe(false);
    expect(DashboardAuthService.csrfMatches(token, [token])).toBe(false);
    expect(DashboardAuthService.csrfMatches(token, undefined)).toBe(false);
  });

  it('csrfMatches refuses an empty token on either side, even two empty ones', () => {
    expect(DashboardAuthService.csrfMatches('', '')).toBe(false);
    expect(DashboardAuthService.csrfMatches(token, '')).toBe(false);
    expect(DashboardAuthService.csrfMatches('', token)).toBe(false);
  });
});
