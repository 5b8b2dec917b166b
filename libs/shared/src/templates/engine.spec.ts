import { compileTemplate, renderTemplate, TemplateRefused, TemplateSource } from './engine';
import { translator } from '../i18n/messages';
import { withFoot } from './footer';
import { STARTERS } from './starters';
import { MailKind, sampleValues } from './variables';

const CONFIRMATION: TemplateSource = {
  subject: 'Confirm for {{ product_name }}',
  text: 'Hello!\nConfirm: {{ confirm_url }}\n',
  html: '<p>Hello!</p>\n<p><a href="{{ confirm_url }}">Confirm</a></p>\n',
};

/** Why compiling was refused, as the dashboard shows it. */
function refusal(source: Partial<TemplateSource>, kind: 'confirmation' | 'invitation' | 'reminder' = 'confirmation'): string {
  try {
    compileTemplate(kind, { ...CONFIRMATION, ...source });
  } catch (error) {
    if (error instanceof TemplateRefused) return error.message;
    throw error;
  }
  return 'accepted';
}

describe('mail templates', () => {
  it('accept a template that shows the required link in its text and its HTML', () => {
    expect(refusal({})).toBe('accepted');
  });

  it.each([
    ['{{ constructor }}', 'Line 2, column 4 of the HTML'],
    ['{{ product_name.constructor }}', 'Line 2, column 4 of the HTML'],
    ['{{ product_name["constructor"] }}', 'Line 2, column 4 of the HTML'],
    ['{{ __proto__ }}', 'Line 2, column 4 of the HTML'],
    ['{{ product_name.__proto__.toString }}', 'Line 2, column 4 of the HTML'],
    ['{% assign k = "constructor" %}{{ product_name[k] }}', 'Line 2, column 34 of the HTML'],
    ['{% assign p = product_name %}{{ p.constructor.name }}', 'Line 2, column 33 of the HTML'],
  ])('refuse %s with its line and column', (trick, where) => {
    expect(refusal({ html: `{{ confirm_url }}\n${trick}` })).toMatch(new RegExp(`^${where}: .* is not allowed`));
  });

  it.each(['include', 'render', 'layout'])('refuse the %s tag: no template reads a file', (tag) => {
    expect(refusal({ text: `{{ confirm_url }}\n  {% ${tag} "secrets" %}` })).toBe(
      `Line 2, column 3 of the text: there is no tag "${tag}" here (templates cannot read other files).`,
    );
  });

  it('refuse the include tag inside a liquid tag too', () => {
    expect(refusal({ text: `{{ confirm_url }}{% liquid\n include "x" %}` })).toMatch(/^Line 2, column 2 of the text: there is no tag "include"/);
  });

  it('refuse an unknown variable, and invitation data in a confirmation, naming the ones there are', () => {
    expect(refusal({ subject: 'Hi {{ first_name }}' })).toBe(
      'Line 1, column 7 of the subject: unknown variable "first_name"; the confirmation mail knows product_name, confirm_url, kept_for, unsubscribe_url.',
    );
    expect(refusal({ text: '{{ confirm_url }} {{ invitation_url }}' })).toMatch(/^Line 1, column 22 of the text: unknown variable "invitation_url"/);
    expect(refusal({ text: '{{ code }}', html: '{{ invitation_url }} {{ code }}' }, 'invitation')).toMatch(/^Line 1, column 4 of the text: unknown variable "code"/);
  });

  it('refuse a template without its link in the text or in the HTML, pointing at the part’s end', () => {
    expect(refusal({ text: 'No link here.\nNone.' })).toBe('Line 2, column 6 of the text: the text never shows {{ confirm_url }}, the link this mail is for.');
    expect(refusal({ html: '<p>{% if false %}{{ confirm_url }}{% endif %}</p>' })).toMatch(/^Line 1, column 50 of the HTML: the HTML never shows \{\{ confirm_url \}\}/);
    expect(refusal({ text: '{{ invitation_url }}', html: '{{ invitation_url }}' }, 'reminder')).toBe('accepted');
  });

  it('refuse what does not parse, an unknown filter and the raw filter', () => {
    expect(refusal({ text: '{{ confirm_url }}\n{% if product_name %}' })).toMatch(/^Line 2, column 1 of the text: tag \{% if product_name %\} not closed/);
    expect(refusal({ html: '{{ confirm_url | nope }}' })).toMatch(/^Line 1, column 1 of the HTML: undefined filter: nope/);
    expect(refusal({ html: '{{ confirm_url | raw }}' })).toMatch(/^Line 1, column 1 of the HTML: undefined filter: raw/);
  });

  it('refuse HTML that reaches past its own part of the mail, with where it is when it is written so', () => {
    expect(refusal({ html: '{{ confirm_url }}\n  <style>a { display: none }</style>' })).toMatch(/^Line 2, column 3 of the HTML: a <style> element styles the whole mail/);
    expect(refusal({ html: '{{ confirm_url }}<svg><style>a{}</style></svg>' })).toMatch(/^Line 1, column 23 of the HTML: a <style> element/);
    expect(refusal({ html: '{{ confirm_url }}<link rel="stylesheet" href="https://x.example/a.css">' })).toMatch(/^Line 1, column 18 of the HTML: a <link> element/);
    expect(refusal({ html: '{{ confirm_url }}<plaintext>' })).toMatch(/^Line 1, column 18 of the HTML: a <plaintext> element/);
    expect(refusal({ html: '<meta http-equiv="Refresh" content="0">{{ confirm_url }}' })).toMatch(/^Line 1, column 1 of the HTML: a <meta http-equiv="refresh">/);
    // Made by the template's tags: found in the rendered HTML, where no line of the template is known.
    expect(refusal({ html: '{{ confirm_url }}<sty{% if true %}le{% endif %}>a{}</style>' })).toMatch(/^In the HTML: a <style> element/);
    // A style sheet that only a parser with scripts on reads as one.
    expect(refusal({ html: '{{ confirm_url }}<noscript><!--</noscript><style>a{}</style>--></noscript>' })).toMatch(/^In the HTML: a <style> element/);
  });

  it('accept what a mail needs, whatever it leaves open: the foot follows it, closed', () => {
    for (const html of ['<!-- ', '<textarea>', '<title>', '<table><tr><td>', '<a href="https://x.example/">', '<div style="display:none">', '<p title="', '<svg><text>', '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">']) {
      expect([html, refusal({ html: `<p>{{ confirm_url }}</p>${html}` })]).toEqual([html, 'accepted']);
    }
  });

  it('stop a loop that would take the mailer’s memory', () => {
    expect(refusal({ text: '{{ confirm_url }}{% for i in (1..100000000) %}x{% endfor %}' })).toMatch(/^Line 1, column 18 of the text: memory alloc limit exceeded/);
  });

  it('escape a value in the HTML part, not in the text or the subject', () => {
    const template = compileTemplate('confirmation', { subject: '{{ product_name }}', text: '{{ product_name }} {{ confirm_url }}', html: '<b>{{ product_name }}</b> {{ confirm_url }}' });
    const mail = renderTemplate(template, { ...sampleValues('confirmation'), product_name: '<i>Acme</i> & "co"' });
    expect(mail.html).toBe('<b>&lt;i&gt;Acme&lt;/i&gt; &amp; &#34;co&#34;</b> https://waitlist.example/confirm/sample-confirmation-token');
    expect(mail.text).toContain('<i>Acme</i> & "co"');
    expect(mail.subject).toBe('<i>Acme</i> & "co"');
  });

  it('put the subject on one line', () => {
    const template = compileTemplate('confirmation', { ...CONFIRMATION, subject: 'Confirm\n for\r\n{{ product_name }}  ' });
    expect(renderTemplate(template, sampleValues('confirmation')).subject).toBe('Confirm for Acme');
  });
});

describe('the editor’s starting templates', () => {
  it.each(Object.keys(STARTERS) as MailKind[])('the %s starter is a valid template', (kind) => {
    expect(() => compileTemplate(kind, STARTERS[kind])).not.toThrow();
  });
});

describe(withFoot.name, () => {
  it('puts the unsubscribe and my-data links after the text, and in the HTML after the template’s content, outside it, in the language', () => {
    const links = { unsubscribe: 'https://w.example/unsubscribe/t"', myData: 'https://w.example/w/pk/my-data' };
    const mail = withFoot({ subject: 's', text: 'Hi\n\n', html: '<!doctype html><html lang="de"><body style="display:none"><p>Hi</BODY></html>' }, translator('en'), links);
    expect(mail.text).toBe('Hi\n\nUnsubscribe: https://w.example/unsubscribe/t"\nSee or delete your data: https://w.example/w/pk/my-data\n');
    expect(mail.html).toMatch(
      /^<!DOCTYPE html><html><head><\/head><body><div style="display:flow-root"><p>Hi<\/p><\/div><div style="[^"]+"><p [^>]+><a href="https:\/\/w.example\/unsubscribe\/t&quot;"[^>]*>Unsubscribe<\/a> · <a href="https:\/\/w.example\/w\/pk\/my-data"[^>]*>See or delete your data<\/a><\/p><\/div><\/body><\/html>$/,
    );
    expect(withFoot({ subject: 's', text: 'Hallo', html: '<p>Hallo</p>' }, translator('de'), { ...links, myData: null }).text).toBe('Hallo\n\nAbmelden: https://w.example/unsubscribe/t"\n');
  });
});
