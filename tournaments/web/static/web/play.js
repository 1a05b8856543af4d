// The play screen, live. The page is drawn on the server; this script keeps it up to date and
// plays the moves through the API (docs/online.md):
// - it follows the seat's event stream (GET /api/matches/{id}/seats/{pos}/events/, the session
//   cookie signs it in) and, on each `view` event, draws the changing part of the page again
//   from the server (data-state-url: the same template as the page, in the reader's language);
// - a button posts its action to POST /api/matches/{id}/seats/{pos}/actions/ with the CSRF
//   token (X-CSRFToken: the API checks it for a session) and an Idempotency-Key made of the
//   match, the seat and the actions applied so far, so a second click never plays twice, and
//   the decision it answers (`actions`, as the page showed it), so a click that comes after the
//   match has moved on is refused rather than applied to a decision the player never saw;
//   a refusal (422 illegal, 409 out of turn…) shows the API's message;
// - the move's deadline counts down every second; once the player's own time is up, the
//   buttons are disabled (the server refuses a late move anyway) until the page is redrawn.
// Without it the buttons post to the page itself, which plays the move and draws itself again.
(function () {
  "use strict";

  var root = document.querySelector("[data-play]");
  if (!root || !window.fetch) {
    return;
  }
  var words = root.dataset;
  var announce = document.querySelector("[data-announce]");
  var errorBox = document.querySelector("[data-error]");
  var connection = document.querySelector("[data-connection]");
  var noScript = document.querySelector("[data-no-script]");
  if (noScript) {
    noScript.hidden = true;
  }

  function state() {
    return root.querySelector("[data-state]");
  }

  // --- drawing the page again ----------------------------------------------------------------

  var loading = false;
  var again = false;

  function redraw() {
    if (loading) {  // events come in bursts (the bots move at once): one read after the burst
      again = true;
      return;
    }
    loading = true;
    fetch(words.stateUrl, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (html !== null) {
          var holder = document.createElement("div");
          holder.innerHTML = html;
          var fresh = holder.querySelector("[data-state]");
          if (fresh) {
            swap(fresh);
          }
        }
      })
      .catch(function () { again = true; })
      .then(function () {
        loading = false;
        if (again) {
          again = false;
          window.setTimeout(redraw, 50);
        }
      });
  }

  function swap(fresh) {
    var old = state();
    var focused = old.contains(document.activeElement);
    old.replaceWith(fresh);
    var sentence = fresh.getAttribute("data-announce-text");
    if (sentence && announce.textContent !== sentence) {
      announce.textContent = sentence;
    }
    if (focused) {  // the focused button is gone: put the focus where the next move is
      var next = fresh.querySelector(".choices h2") || fresh.querySelector("#table-heading");
      if (next) {
        next.focus();
      }
    }
    tick();
  }

  // --- the moves ----------------------------------------------------------------------------

  function refusal(body, status) {
    var said = body && body.error && body.error.message;
    return said || ("HTTP " + status);
  }

  function showError(message) {
    errorBox.textContent = "";
    errorBox.appendChild(document.createTextNode(words.wordsRefused + " "));
    var said = document.createElement("span");
    said.lang = "en";  // the API speaks English
    said.textContent = message;
    errorBox.appendChild(said);
    errorBox.hidden = false;
  }

  root.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-act]");
    if (!form) {
      return;
    }
    var chosen = event.submitter && event.submitter.name === "action" ? event.submitter : form.elements.namedItem("action");
    if (!chosen || !chosen.value) {
      return;  // a browser that does not say which button was pressed: the form posts to the page
    }
    event.preventDefault();
    if (root.getAttribute("aria-busy") === "true") {
      return;  // one move at a time
    }
    var action = JSON.parse(chosen.value);
    root.setAttribute("aria-busy", "true");
    errorBox.hidden = true;
    announce.textContent = words.wordsSending;
    fetch(words.actionsUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "X-CSRFToken": form.elements.namedItem("csrfmiddlewaretoken").value,
        "Idempotency-Key": form.elements.namedItem("key").value
      },
      body: JSON.stringify({action: action, actions: Number(form.elements.namedItem("actions").value)})
    })
      .then(function (answer) {
        if (answer.ok) {
          return null;
        }
        return answer.json().catch(function () { return null; }).then(function (body) {
          showError(refusal(body, answer.status));
        });
      })
      .catch(function () { showError(words.wordsOffline); })
      .then(function () {
        root.removeAttribute("aria-busy");
        redraw();  // the stream says so too; this keeps the page right if it is slow
      });
  });

  // --- the clock ----------------------------------------------------------------------------

  var skew = 0;  // the server's clock minus this one's, from the page's time of drawing
  var drawnAt = root.querySelector("[data-server-now]");
  if (drawnAt) {
    skew = Date.parse(drawnAt.getAttribute("data-server-now")) - Date.now();
  }

  function tick() {
    root.querySelectorAll("[data-deadline]").forEach(function (clock) {
      var left = Math.round((Date.parse(clock.getAttribute("data-deadline")) - (Date.now() + skew)) / 1000);
      if (isNaN(left)) {
        return;
      }
      if (left <= 0) {
        clock.textContent = words.wordsUp;
        if (clock.hasAttribute("data-mine")) {  // the move is refused now: no button offers it
          root.querySelectorAll(".choices button, .choices select").forEach(function (control) {
            control.disabled = true;
          });
        }
      } else {
        var minutes = Math.floor(left / 60);
        var seconds = left % 60;
        var shown = (minutes >= 60 ? Math.floor(minutes / 60) + ":" + String(minutes % 60).padStart(2, "0")
          : String(minutes)) + ":" + String(seconds).padStart(2, "0");
        clock.textContent = words.wordsLeft.replace("{time}", shown);
      }
      clock.parentNode.classList.toggle("late", left <= 10);
    });
  }
  tick();
  window.setInterval(tick, 1000);

  // --- the seat's event stream --------------------------------------------------------------

  // The stream starts with the view as it stands, which the page shows already.
  function drawnAlready(data) {
    var now;
    try {
      now = JSON.parse(data);
    } catch (error) {
      return false;
    }
    var drawn = state();
    return String(now.actions) === drawn.getAttribute("data-actions") && now.status === drawn.getAttribute("data-status") &&
      String(now.waiting_for) === drawn.getAttribute("data-waiting-for") &&
      String(now.forfeited) === drawn.getAttribute("data-forfeited");
  }

  var finished = state().getAttribute("data-status") === "finished";
  if (window.EventSource && !finished) {
    var seen = state().getAttribute("data-actions");
    var stream = new EventSource(words.eventsUrl + "?last_event_id=" + encodeURIComponent(seen));
    stream.addEventListener("view", function (event) {
      connection.hidden = true;
      if (!drawnAlready(event.data)) {
        redraw();
      }
    });
    stream.addEventListener("over", function () {
      stream.close();  // the stream ends with the match: no reconnection
      redraw();
    });
    stream.addEventListener("open", function () { connection.hidden = true; });
    stream.addEventListener("error", function () {
      if (stream.readyState === EventSource.CONNECTING) {  // the browser reconnects by itself
        connection.textContent = words.wordsOffline;
        connection.hidden = false;
      }
    });
  }
})();
