// The pages work without JavaScript; this only adds two conveniences.
(function () {
  "use strict";

  // A live tournament's progress ([data-poll]): the fragment is read again every few seconds
  // and swapped in when it changed, until it says the tournament is over ([data-over]).
  var live = document.querySelector("[data-poll]");
  if (live && window.fetch) {
    var every = (Number(live.getAttribute("data-every")) || 5) * 1000;
    var last = live.innerHTML;
    var poll = function () {
      fetch(live.getAttribute("data-poll"), {credentials: "same-origin", headers: {"Accept": "text/html"}})
        .then(function (answer) { return answer.ok ? answer.text() : null; })
        .then(function (html) {
          if (html !== null && html.trim() !== last.trim()) {
            live.innerHTML = last = html;
          }
          if (!live.querySelector("[data-over]")) {
            window.setTimeout(poll, every);
          }
        })
        .catch(function () { window.setTimeout(poll, every * 3); });  // offline for a moment
    };
    window.setTimeout(poll, every);
  }

  // The pairings' print button: shown only where it can work.
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  });
})();
