/** package.json's engines field, which npm start checks itself (node-version.spec.ts holds the two together). */
export const MINIMUM_NODE = '20.19';

/** The sentence for a Node.js older than MINIMUM_NODE, or undefined when it is recent enough. */
export function nodeTooOld(version: string): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  const [needMajor, needMinor] = MINIMUM_NODE.split('.').map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `Node.js ${version} is too old: the service needs Node.js ${MINIMUM_NODE} or newer; install a current Node.js 20 or later.`;
}
