// The hosted sign-up form's challenge (served as /challenge.js, from the service's own origin, so the
// page's policy allows it by 'self'): it fetches a challenge, solves it with the browser's SHA-256 while
// the person types, and puts the solution in the form's hidden field. Required: the button waits for it.
(function () {
  var form = document.querySelector('form[data-challenge]');
  if (!form) return;
  var field = form.querySelector('input[name="challenge"]');
  var button = form.querySelector('button[type="submit"]');
  var status = form.querySelector('.challenge');
  var key = form.querySelector('input[name="key"]').value;
  if (status) status.textContent = status.getAttribute('data-checking');
  var solved = fetch('/public/v1/challenge?key=' + encodeURIComponent(key), { credentials: 'omit' })
    .then(function (response) {
      return response.json();
    })
    .then(solve)
    .then(
      function (solution) {
        field.value = solution;
        button.disabled = false;
        if (status) status.textContent = status.getAttribute('data-checked');
      },
      // Not solved (no answer, no crypto.subtle): the form goes without it, and the service's page says why.
      function () {
        button.disabled = false;
      },
    );
  // A person quicker than the solver: the form goes once it is solved.
  form.addEventListener('submit', function (event) {
    if (field.value) return;
    event.preventDefault();
    solved.then(function () {
      form.submit();
    });
  });

  // function solve(challenge), from challenges/solve.browser.js
})();
