import { html, SafeHtml } from '@app/shared';
import type { ProductPage } from '../shared/product-page';
import { formSnippet } from '../shared/form-snippet';

/** The publishable keys in use of the page's mode and of test mode: the links the next steps show. */
export interface FirstStepKeys {
  publicBase: string;
  here: string | null;
  test: string | null;
}

/**
 * What an empty product does next, where its charts will be: the hosted form to share, the script-tag
 * form for the product's site, and a first sign-up of one's own in test mode, which then shows here.
 */
export function firstSteps(at: ProductPage, { publicBase, here, test }: FirstStepKeys): SafeHtml {
  const testOverview = `/dashboard/${at.product.id}/test/overview`;
  const noKey = html`<p class="wrap">There is no publishable key in ${at.mode} mode: create a key pair under <a href="${at.base}/keys">API keys</a> first.</p>`;
  const hosted = here && `${publicBase}/w/${here}`;
  const testForm = test && `${publicBase}/w/${test}`;
  return html`<section class="card" aria-labelledby="next-steps"><h2 id="next-steps">Next steps: no one has signed up in ${at.mode} mode yet</h2>
<h3>1. Share the hosted sign-up form</h3>
${hosted ? html`<p class="wrap">A page of its own, ready to link to: <a href="${hosted}">${hosted}</a></p>` : noKey}
${formSnippet(publicBase, here ?? undefined, '2. Or put the form on your site')}
<h3>${hosted ? '3' : '2'}. Make a first test sign-up</h3>
${testForm
  ? html`<p class="wrap">Sign up yourself on <a href="${testForm}">the test mode's form</a> (test mode's entries and mails are apart from live's), confirm from the mail, and see it on <a href="${testOverview}">the test overview</a>.</p>`
  : html`<p class="wrap">Create a test key pair under <a href="/dashboard/${at.product.id}/test/keys">API keys (test)</a>, then sign up on its form.</p>`}
<p class="muted">The charts show here from the first sign-up on.</p></section>`;
}
