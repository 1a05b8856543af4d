// The organisers' forms work without JavaScript; this only makes them shorter and easier.
(function () {
  "use strict";

  // A refused form: its list of what is wrong is read out and focused first.
  var summary = document.querySelector("[data-error-summary]");
  if (summary) {
    summary.focus();
  }

  // A tournament's form lists the options of every game and the settings of every format;
  // only the chosen game's and format's count, so only they are shown (and sent), the online
  // clock only for a tournament played online, and who confirms reported results only for one
  // played in the room.
  var form = document.querySelector("[data-tournament-form]");
  if (!form) {
    return;
  }
  var show = function (group, on) {
    group.hidden = !on;
    group.disabled = !on;
  };
  var chosen = function (name) {
    var field = form.elements[name];
    return field ? field.value : "";
  };
  var update = function () {
    form.querySelectorAll("[data-game]").forEach(function (group) {
      show(group, group.getAttribute("data-game") === chosen("game"));
    });
    form.querySelectorAll("[data-format]").forEach(function (group) {
      show(group, group.getAttribute("data-format") === chosen("format"));
    });
    form.querySelectorAll("[data-online]").forEach(function (group) {
      show(group, chosen("where") === "online");
    });
    form.querySelectorAll("[data-room]").forEach(function (group) {
      show(group, chosen("where") !== "online");
    });
  };
  form.addEventListener("change", function (event) {
    if (["game", "format", "where"].indexOf(event.target.name) !== -1) {
      update();
    }
  });
  update();
})();
