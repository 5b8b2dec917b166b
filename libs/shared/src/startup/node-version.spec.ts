import { engines } from '../../../../package.json';
import { MINIMUM_NODE, nodeTooOld } from './node-version';

describe('nodeTooOld', () => {
  it('holds the same minimum as package.json engines, which npm start checks', () => {
    expect(engines.node).toBe(`>=${MINIMUM_NODE}`);
  });

  it.each(['20.19.0', '20.20.2', '21.0.0', '22.1.0', '24.9.3'])('lets Node.js %s start', (version) => {
    expect(nodeTooOld(version)).toBeUndefined();
  });

  it.each(['20.18.3', '18.20.0', '16.0.0'])('stops Node.js %s with a sentence that says what to install', (version) => {
    expect(nodeTooOld(version)).toBe(`Node.js ${version} is too old: the service needs Node.js 20.19 or newer; install a current Node.js 20 or later.`);
  });
});
