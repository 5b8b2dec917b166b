// The challenge's solver, put into /embed.js and /challenge.js where they name it (browser-scripts.ts),
// so that both forms solve alike. Plain ES5 and crypto.subtle on the page's thread: no worker, no eval.
// ALTCHA's proof of work: the number n with SHA-256(salt + n) = challenge, a thousand tries at a time.
function solve(challenge) {
  var encoder = new TextEncoder();
  return (function from(start) {
    if (start > challenge.maxnumber) throw new Error('The challenge has no solution');
    var numbers = [];
    for (var n = start; n <= Math.min(start + 999, challenge.maxnumber); n++) numbers.push(n);
    return Promise.all(numbers.map(function (number) { return crypto.subtle.digest('SHA-256', encoder.encode(challenge.salt + number)); })).then(function (hashes) {
      for (var i = 0; i < hashes.length; i++) {
        var hex = Array.prototype.map.call(new Uint8Array(hashes[i]), function (byte) { return (byte < 16 ? '0' : '') + byte.toString(16); }).join('');
        if (hex === challenge.challenge) {
          return btoa(JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number: numbers[i], salt: challenge.salt, signature: challenge.signature }));
        }
      }
      return from(start + 1000);
    });
  })(0);
}
