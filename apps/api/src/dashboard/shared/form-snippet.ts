import { html } from '@app/shared';

// Shown on the keys page and in an empty overview's next steps: a part of two rooms, so it stands below both.

/** The script-tag form for the newest working publishable key (the list is newest first), with its link for pages without JavaScript. */
export function formSnippet(publicBase: string, hint: string | undefined, heading = 'Put the form on your site') {
  if (!hint) return '';
  const hosted = `${publicBase}/w/${hint}`;
  return html`<h2>${heading}</h2>
<p class="wrap">Paste this where the form should appear. It shows the form, then the person's place, referral link and, when you show one, the leaderboard. Without JavaScript it is a link to the hosted form (<a href="${hosted}">${hosted}</a>).</p>
<pre class="scroll" tabindex="0" aria-label="The snippet for your site"><code>${`<script src="${publicBase}/embed.js" data-key="${hint}" async></script>\n<noscript><a href="${hosted}">Join the waitlist</a></noscript>`}</code></pre>`;
}
