// The status page's copy and share buttons (served as /share.js, from the service's own origin, so the
// page's policy allows it by 'self'). They start hidden, so that without scripts no button does nothing:
// copy shows where this runs, share only where the system has a share sheet.
(function () {
  var box = document.querySelector('.referral');
  if (!box) return;
  var field = box.querySelector('input');
  var copy = box.querySelector('button[data-copied]');
  var share = box.querySelector('button[data-share]');
  copy.hidden = false;
  copy.addEventListener('click', function () {
    field.select();
    var done = function () {
      copy.textContent = copy.getAttribute('data-copied');
    };
    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () {});
    else if (document.execCommand('copy')) done();
  });
  if (!navigator.share) return;
  share.hidden = false;
  share.addEventListener('click', function () {
    navigator.share({ title: share.getAttribute('data-share'), url: field.value }).catch(function () {});
  });
})();
