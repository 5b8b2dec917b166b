// Served as /embed.js, the script-tag form: <script src="{base}/embed.js" data-key="pk_…" async>. It runs in the
// customer's page, so it stays small, depends on nothing, adds no global, and puts its form in a shadow root, out of
// the page's styles but for the documented --waitlist-* custom properties. A strict Content-Security-Policy needs only
// the service's origin in script-src and connect-src: no inline style or script, no eval, no worker (the product's
// challenge is solved with crypto.subtle on the page's thread, a thousand hashes per step).
(function () {
  var CSS =
    ':host{all:initial;display:block;font:var(--waitlist-font,16px/1.5 system-ui,sans-serif);color:var(--waitlist-text,#1f2328)}' +
    '.box{background:var(--waitlist-background,transparent);border:1px solid var(--waitlist-border,#d0d7de);border-radius:var(--waitlist-radius,8px);padding:16px;max-width:28rem}' +
    'h2{font-size:1.2em;margin:0 0 8px}label{display:block;font-weight:600;margin:8px 0 4px}p{margin:8px 0}' +
    'input,textarea,select{box-sizing:border-box;width:100%;font:inherit;padding:8px;border:1px solid var(--waitlist-border,#d0d7de);border-radius:var(--waitlist-radius,8px)}' +
    'button{font:inherit;margin-top:12px;padding:8px 16px;border:0;border-radius:var(--waitlist-radius,8px);background:var(--waitlist-accent,#1f6feb);color:var(--waitlist-accent-text,#fff);cursor:pointer}' +
    'button[disabled]{opacity:.6}.row{display:flex;gap:8px;align-items:center}.row button{margin-top:0;white-space:nowrap}' +
    'fieldset{border:0;padding:0;margin:8px 0 0}legend{font-weight:600;padding:0}.choice{font-weight:400;display:flex;gap:6px;align-items:center}.check{width:auto}' +
    '.place{font-size:2em;font-weight:700;margin:0}.muted{opacity:.75;font-size:.9em}.error{color:#cf222e}ol{padding-left:1.4em}' +
    '.trap{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}';
  var WATCH_MS = 30 * 60 * 1000;
  var POLL_MS = 3000;

  var scripts = document.currentScript ? [document.currentScript] : document.querySelectorAll('script[data-key][src*="/embed.js"]');
  Array.prototype.forEach.call(scripts, function (script) {
    if (script.getAttribute('data-waitlist') === 'on') return;
    script.setAttribute('data-waitlist', 'on');
    start(script);
  });

  function start(script) {
    var key = script.getAttribute('data-key') || '';
    var base = script.src.replace(/\/embed\.js([?#].*)?$/, '');
    var host = document.createElement('div');
    host.className = 'waitlist-form';
    script.parentNode.insertBefore(host, script.nextSibling);
    var root = host.attachShadow({ mode: 'open' });
    if (root.adoptedStyleSheets && typeof CSSStyleSheet === 'function' && CSSStyleSheet.prototype.replaceSync) {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      root.adoptedStyleSheets = [sheet];
    } else {
      root.appendChild(el('style', {}, [CSS]));
    }
    var box = el('div', { class: 'box' }, []);
    root.appendChild(box);
    var hosted = base + '/w/' + encodeURIComponent(key);

    request('GET', '/public/v1/forms/' + encodeURIComponent(key)).then(
      function (answer) {
        if (answer.status !== 200) return fallback();
        var form = answer.body;
        var saved = load();
        if (saved) watchFor(form, saved);
        else showForm(form);
      },
      fallback,
    );

    function fallback() {
      show([el('a', { href: hosted }, ['Join the waitlist'])]);
    }

    function showForm(form) {
      var m = form.messages;
      var email = el('input', { type: 'email', name: 'email', required: '', autocomplete: 'email', maxlength: '254', id: 'waitlist-email' }, []);
      var button = el('button', { type: 'submit' }, [m.join]);
      var problem = el('p', { class: 'error', role: 'alert' }, []);
      var asked = form.questions.map(function (question, index) {
        return questionField(question, 'waitlist-q' + index, m);
      });
      var children = [el('h2', {}, [form.title]), el('label', { for: 'waitlist-email' }, [m.email]), email];
      asked.forEach(function (field) {
        children.push(field.node);
      });
      // The honeypot, while the product has it: no person sees, hears or reaches it; a bot fills it in.
      var trap = form.honeypot ? el('input', { type: 'text', name: 'website', id: 'waitlist-website', tabindex: '-1', autocomplete: 'off' }, []) : null;
      if (trap) children.push(el('div', { class: 'trap', 'aria-hidden': 'true' }, [el('label', { for: 'waitlist-website' }, ['Website']), trap]));
      // The product's challenge, solved while the person types; required shows it as a step the button waits for.
      var check = el('p', { class: 'muted', role: 'status' }, []);
      if (form.challenge === 'required') children.push(check);
      var solution = form.challenge === 'off' ? null : challenge();
      function challenge() {
        var required = form.challenge === 'required';
        button.disabled = required;
        check.textContent = required ? m.checking : '';
        var solving = request('GET', '/public/v1/challenge?key=' + encodeURIComponent(key)).then(function (answer) { return solve(answer.body); });
        var enable = function () { button.disabled = false; };
        solving.then(function () { check.textContent = required ? m.checked : ''; }).then(enable, enable);
        return solving;
      }
      // A solution is taken once, whatever the answer: a refused sign-up's next try needs a new one.
      function refused(message) {
        button.disabled = false;
        problem.textContent = message;
        if (solution) solution = challenge();
      }
      var fields = el('form', {}, children.concat([button, problem]));
      fields.addEventListener('submit', function (event) {
        event.preventDefault();
        button.disabled = true;
        problem.textContent = '';
        var watch = newWatch();
        var ref = new URLSearchParams(location.search).get('ref');
        var answers = {};
        form.questions.forEach(function (question, index) {
          var value = asked[index].value();
          if (value !== undefined) answers[question.key] = value;
        });
        var body = { key: key, email: email.value, watch: watch, locale: form.locale, answers: answers, attribution: attribution() };
        if (ref) body.ref = ref;
        if (form.formToken) body.formToken = form.formToken;
        if (trap) body.website = trap.value;
        (solution || Promise.resolve(null))
          .then(function (solved) {
            if (solved) body.challenge = solved;
            return request('POST', '/public/v1/signups', body);
          })
          .then(
            function (answer) {
              if (answer.status !== 202) return refused((answer.body && answer.body.error && answer.body.error.message) || m.failed);
              var saved = { watch: watch, until: Date.now() + WATCH_MS };
              keep(saved);
              watchFor(form, saved);
            },
            function () {
              refused(m.failed);
            },
          );
      });
      show([fields]);
    }

    // "Check your inbox" until the person confirms from the mail (in any tab), then the place.
    function watchFor(form, saved) {
      var m = form.messages;
      show([el('h2', {}, [m.checkInbox]), el('p', {}, [m.checkInboxText])]);
      (function poll() {
        if (Date.now() > saved.until) return forget();
        request('POST', '/public/v1/signups/status', { key: key, watch: saved.watch }).then(
          function (answer) {
            var status = answer.body || {};
            if (answer.status === 200 && status.state === 'confirmed') return showPlace(form, status);
            if (answer.status === 200 && status.state === 'invited') {
              forget();
              return show([el('h2', {}, [m.invited])]);
            }
            // Over the service's limit for this address (several pages behind one): ask again when it says.
            setTimeout(poll, answer.status === 429 ? Math.max(POLL_MS, 1000 * Number(answer.retryAfter)) || POLL_MS : POLL_MS);
          },
          function () {
            setTimeout(poll, POLL_MS);
          },
        );
      })();
    }

    function showPlace(form, status) {
      var m = form.messages;
      var parts = [el('h2', {}, [m.onTheList]), el('p', {}, [m.yourPlace]), el('p', { class: 'place' }, ['#' + status.place]), el('p', { class: 'muted' }, [status.words.wait])];
      if (status.referralLink) {
        var link = el('input', { readonly: '', value: status.referralLink, 'aria-label': m.yourLink }, []);
        var copy = el('button', { type: 'button' }, [m.copy]);
        copy.addEventListener('click', function () {
          link.select();
          var done = function () {
            copy.textContent = m.copied;
          };
          if (navigator.clipboard) navigator.clipboard.writeText(status.referralLink).then(done, function () {});
          else if (document.execCommand('copy')) done();
        });
        // The system's share sheet where there is one, else a mail to write.
        var share = el('button', { type: 'button' }, [m.share]);
        share.addEventListener('click', function () {
          if (navigator.share) navigator.share({ title: form.title, url: status.referralLink }).catch(function () {});
          else window.open('mailto:?subject=' + encodeURIComponent(form.title) + '&body=' + encodeURIComponent(status.referralLink), '_blank');
        });
        parts.push(el('p', {}, [m.shareText]), el('div', { class: 'row' }, [link, copy, share]));
      }
      if (status.words.friends) parts.push(el('p', {}, [status.words.friends]));
      if (status.leaderboard) {
        parts.push(el('h2', {}, [m.leaderboard]));
        parts.push(
          status.leaderboard.length
            ? el('ol', {}, status.leaderboard.map(function (leader) { return el('li', {}, [leader.email + ': ' + leader.referrals]); }))
            : el('p', { class: 'muted' }, [m.nobodyYet]),
        );
      }
      show(parts);
    }

    function show(children) {
      box.textContent = '';
      children.forEach(function (child) {
        box.appendChild(child);
      });
    }

    function request(method, path, body) {
      return fetch(base + path, {
        method: method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
        credentials: 'omit',
      }).then(function (response) {
        return response.json().then(
          function (json) { return { status: response.status, retryAfter: response.headers.get('retry-after'), body: json }; },
          function () { return { status: response.status, retryAfter: response.headers.get('retry-after'), body: null }; },
        );
      });
    }

    // The watch outlives a reload, so that a person back from the mail sees the place.
    function storageKey() {
      return 'waitlist:' + key;
    }
    function load() {
      try {
        var saved = JSON.parse(localStorage.getItem(storageKey()) || 'null');
        return saved && saved.until > Date.now() ? saved : null;
      } catch (error) {
        return null;
      }
    }
    function keep(saved) {
      try {
        localStorage.setItem(storageKey(), JSON.stringify(saved));
      } catch (error) {
        // Private windows may refuse; the page still watches until it is closed.
      }
    }
    function forget() {
      try {
        localStorage.removeItem(storageKey());
      } catch (error) {
        // Nothing kept, nothing to forget.
      }
    }
  }

  // One of the product's questions as a field, and how its answer is read (undefined: no answer).
  function questionField(question, id, m) {
    var label = question.label + (question.required ? '' : ' ' + m.optional);
    var required = question.required ? { required: '' } : {};
    var choices = question.choices || [];
    // What each choice shows in the form's language; the answer is the choice itself.
    var shown = question.choiceLabels || choices;
    if (question.type === 'checkbox') {
      var box = el('input', Object.assign({ type: 'checkbox', id: id, class: 'check' }, required), []);
      return { node: el('label', { class: 'choice' }, [box, ' ' + label]), value: function () { return box.checked; } };
    }
    if (question.type === 'multiple_choice') {
      var boxes = choices.map(function (choice) {
        return el('input', { type: 'checkbox', value: choice, class: 'check' }, []);
      });
      var legend = el('legend', {}, [label]);
      var set = el('fieldset', {}, [legend].concat(boxes.map(function (item, n) { return el('label', { class: 'choice' }, [item, ' ' + shown[n]]); })));
      return {
        node: set,
        value: function () {
          var ticked = boxes.filter(function (item) { return item.checked; }).map(function (item) { return item.value; });
          return ticked.length ? ticked : undefined;
        },
      };
    }
    var input =
      question.type === 'single_choice'
        ? el('select', Object.assign({ id: id }, required), [el('option', { value: '' }, [m.choose])].concat(choices.map(function (choice, n) { return el('option', { value: choice }, [shown[n]]); })))
        : question.type === 'long_text'
          ? el('textarea', Object.assign({ id: id, rows: '3' }, required), [])
          : el('input', Object.assign({ id: id, type: 'text' }, required), []);
    return {
      node: el('div', {}, [el('label', { for: id }, [label]), input]),
      value: function () { return input.value.trim() ? input.value : undefined; },
    };
  }

  // Where the person came from: the page's UTM parameters, the page before it, and the page itself.
  function attribution() {
    var query = new URLSearchParams(location.search);
    var kept = { landing_page: location.href };
    ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'].forEach(function (name) {
      if (query.get(name)) kept[name] = query.get(name);
    });
    if (document.referrer) kept.referrer = document.referrer;
    return kept;
  }

  // function solve(challenge), from challenges/solve.browser.js
  function newWatch() {
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    return btoa(String.fromCharCode.apply(null, bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    children.forEach(function (child) { node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child); });
    return node;
  }
})();
