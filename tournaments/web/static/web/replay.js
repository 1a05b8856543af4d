// The replay viewer, step by step without reloading. Without this script the page still works:
// the steps are links and the buttons a form, each drawing its step on the server.
// The tables of this part's steps come from the page (<script id="replay-data">, built by
// tournaments/web/replays.py); each is drawn as templates/web/_play_table.html draws it.
(function () {
  "use strict";

  var viewer = document.querySelector("[data-replay]");
  var source = document.getElementById("replay-data");
  if (!viewer || !source) {
    return;
  }
  var data = JSON.parse(source.textContent);
  var first = data.first;
  var last = first + data.steps.length - 1;
  var total = data.total;
  var query = viewer.getAttribute("data-query");
  var words = viewer.dataset;
  var box = viewer.querySelector("[data-table-box]");
  var number = viewer.querySelector("[data-step-number]");
  var said = viewer.querySelector("[data-step-said]");
  var logBox = document.querySelector(".log-box");
  var stepField = document.querySelector("[data-step-field]");
  var pageUrl = document.querySelector("[data-page-url]");  // where the language switch comes back to
  var buttons = {};
  viewer.querySelectorAll("[data-go]").forEach(function (button) {
    buttons[button.getAttribute("data-go")] = button;
  });
  var now = document.querySelector("ol.log li[aria-current]");
  var current = now ? Number(now.id.slice(5)) : first;
  var keys = viewer.querySelector("[data-keys]");
  if (keys) {
    keys.hidden = false;
  }

  // --- drawing a table ---------------------------------------------------------------------

  var SVG = "http://www.w3.org/2000/svg";

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  function card(code) {
    var face = data.faces[code] || {corner: code, suit: "unknown", name: code, red: false};
    var node = element("span", "playing-card suit-" + face.suit + (face.red ? " red" : ""));
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", face.name);
    node.setAttribute("title", face.name);
    node.setAttribute("data-card", code);
    var corner = element("span", "corner", face.corner);
    corner.setAttribute("aria-hidden", "true");
    node.appendChild(corner);
    var pip = document.createElementNS(SVG, "svg");
    pip.setAttribute("class", "pip");
    pip.setAttribute("aria-hidden", "true");
    pip.setAttribute("focusable", "false");
    pip.setAttribute("viewBox", "0 0 24 24");
    var use = document.createElementNS(SVG, "use");
    use.setAttribute("href", "#suit-" + face.suit);
    pip.appendChild(use);
    node.appendChild(pip);
    return node;
  }

  function backs(count) {
    var node = element("span", "playing-card back");
    node.setAttribute("role", "img");
    var phrase = count === 1 ? words.backOne : words.backMany;
    node.setAttribute("aria-label", phrase.replace("{n}", count));
    if (count > 1) {
      var shown = element("span", "count", "×" + count);
      shown.setAttribute("aria-hidden", "true");
      node.appendChild(shown);
    }
    return node;
  }

  function pile(one) {
    var node = element("div", "pile");
    node.appendChild(element("span", "pile-label", one.label));
    node.appendChild(document.createTextNode(" "));
    var row = element("span", "pile-cards");
    one.cards.forEach(function (code) { row.appendChild(card(code)); });
    if (one.backs) {
      row.appendChild(backs(one.backs));
    }
    if (!one.cards.length && !one.backs) {
      row.appendChild(element("span", "pile-none", words.none));
    }
    node.appendChild(row);
    if (one.note) {
      node.appendChild(document.createTextNode(" "));
      node.appendChild(element("span", "pile-note", one.note));
    }
    return node;
  }

  // A table of the data names its parts by their index in data.pool (tournaments/web/replays.py).
  function expand(drawn) {
    return {
      turn: drawn.turn,
      facts: data.pool[drawn.facts],
      centre: data.pool[drawn.centre],
      seats: drawn.seats.map(function (index) { return data.pool[index]; })
    };
  }

  function table(layout) {
    var felt = element("div", "felt");
    felt.setAttribute("data-table", "");
    var facts = element("dl", "deal-facts");
    layout.facts.forEach(function (fact) {
      var pair = element("div");
      pair.appendChild(element("dt", null, fact[0]));
      pair.appendChild(element("dd", null, fact[1]));
      facts.appendChild(pair);
    });
    felt.appendChild(facts);
    if (layout.centre.length) {
      var centre = element("div", "centre");
      layout.centre.forEach(function (one) { centre.appendChild(pile(one)); });
      felt.appendChild(centre);
    }
    var seats = element("ul", "at-table");
    layout.seats.forEach(function (seat) {
      var toAct = seat.seat === layout.turn;
      var item = element("li", "at-seat" + (toAct ? " to-act" : "") + (seat.you ? " you" : ""));
      var title = element("h3", "seat-title");
      title.appendChild(element("span", null, seat.title));
      title.appendChild(document.createTextNode(" "));
      title.appendChild(element("span", "who", seat.player));
      seat.badges.forEach(function (badge) {
        title.appendChild(document.createTextNode(" "));
        title.appendChild(element("span", "badge", badge));
      });
      if (toAct) {
        title.appendChild(document.createTextNode(" "));
        title.appendChild(element("span", "badge turn", words.turn));
      }
      item.appendChild(title);
      var notes = element("p", "seat-notes");
      notes.appendChild(element("span", "score", words.score + " " + seat.score));
      seat.notes.forEach(function (note) { notes.appendChild(document.createTextNode(" · " + note)); });
      item.appendChild(notes);
      seat.piles.forEach(function (one) { item.appendChild(pile(one)); });
      seats.appendChild(item);
    });
    felt.appendChild(seats);
    return felt;
  }

  // --- stepping ----------------------------------------------------------------------------

  function address(step) {
    return "?" + query + "&step=" + step + "#viewer";
  }

  function mark(button, off) {
    if (off) {
      button.setAttribute("aria-disabled", "true");
    } else {
      button.removeAttribute("aria-disabled");
    }
  }

  function show(step) {
    current = step;
    var item = document.getElementById("step-" + step);
    number.textContent = words.stepWords.replace("{step}", step).replace("{total}", total);
    said.textContent = item.textContent.trim();
    var before = document.querySelector("ol.log li[aria-current]");
    if (before) {
      before.removeAttribute("aria-current");
    }
    item.setAttribute("aria-current", "step");
    if (logBox) {  // keep the step in sight in the list's own box, without moving the page
      var top = item.offsetTop - logBox.offsetTop;
      if (top < logBox.scrollTop || top + item.offsetHeight > logBox.scrollTop + logBox.clientHeight) {
        logBox.scrollTop = top - logBox.clientHeight / 3;
      }
    }
    box.replaceChildren(table(expand(data.tables[data.steps[step - first]])));
    buttons.back.value = Math.max(1, step - 1);
    buttons.forward.value = Math.min(total, step + 1);
    mark(buttons.first, step === 1);
    mark(buttons.back, step === 1);
    mark(buttons.forward, step === total);
    mark(buttons.last, step === total);
    if (stepField) {
      stepField.value = step;
    }
    if (window.history && history.replaceState) {
      history.replaceState(null, "", address(step));
    }
    if (pageUrl) {  // the language switch comes back to this step
      pageUrl.value = window.location.pathname + address(step);
    }
  }

  function go(step) {
    step = Math.min(Math.max(1, step), total);
    if (step === current) {
      return;
    }
    if (step < first || step > last) {  // another part of a long match: its own page
      window.location.href = address(step);
      return;
    }
    show(step);
  }

  var moves = {
    first: function () { go(1); },
    back: function () { go(current - 1); },
    forward: function () { go(current + 1); },
    last: function () { go(total); }
  };

  Object.keys(buttons).forEach(function (name) {
    buttons[name].addEventListener("click", function (event) {
      event.preventDefault();
      moves[name]();
    });
  });

  document.querySelector("ol.log").addEventListener("click", function (event) {
    var link = event.target.closest("a");
    var item = link && link.closest("li");
    if (item) {
      event.preventDefault();
      go(Number(item.id.slice(5)));
    }
  });

  var KEYS = {ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last"};
  document.addEventListener("keydown", function (event) {
    var move = KEYS[event.key];
    if (!move || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target.closest && target.closest("input, select, textarea, [contenteditable]")) {
      return;  // the arrows keep their meaning in a form's fields
    }
    event.preventDefault();
    moves[move]();
  });

  show(current);
})();
