import { createHash } from 'node:crypto';

/**
 * The template editor's one script: as the team types, it asks the preview route (300 ms after the
 * last key) for the mail the server renders with the mailer's engine, and shows it or the refusal
 * with its line and column. A newer answer wins over an older one; the HTML shows in a sandboxed frame
 * (no script of a template runs). Without it, the page shows the preview as of its last load.
 */
export const PREVIEW_SCRIPT = `(() => {
  const form = document.getElementById('template');
  const show = (id) => document.getElementById(id);
  let timer;
  let asked = 0;
  async function preview() {
    const mine = ++asked;
    let answer;
    try {
      const response = await fetch(form.dataset.preview, { method: 'POST', body: new URLSearchParams(new FormData(form)), headers: { accept: 'application/json' } });
      answer = await response.json();
    } catch {
      answer = { error: { message: 'The preview did not answer; it tries again as you type.' } };
    }
    if (mine !== asked) return;
    show('preview-error').textContent = answer.error ? answer.error.message : '';
    if (answer.error) return;
    show('preview-subject').textContent = answer.subject;
    show('preview-text').textContent = answer.text;
    show('preview-html').srcdoc = answer.html;
  }
  form.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(preview, 300);
  });
})();`;

/** The editor's content security policy allows this script and no other. */
export const PREVIEW_SCRIPT_HASH = `'sha256-${createHash('sha256').update(PREVIEW_SCRIPT).digest('base64')}'`;

/** The editor's route, whose policy runs the script. */
export const TEMPLATE_EDITOR = { route: '/dashboard/:productId/:mode/templates/:kind/:locale', scriptHashes: [PREVIEW_SCRIPT_HASH] };
