// Live updates over server-sent events: the status page's state and the
// log page's new lines. Every page works without this file.
(function () {
  "use strict";
  var state = document.getElementById("state");
  var log = document.getElementById("log");
  var progress = document.getElementById("update-progress");
  if (!state && !log && !progress || !window.EventSource) return;
  var url = "/events" + (log ? "?logs=" + encodeURIComponent(log.dataset.level || "INFO") : progress ? "?update" : "");
  var es = new EventSource(url);
  es.addEventListener("state", function (e) {
    if (!state) return;
    var s = JSON.parse(e.data);
    state.textContent = s.state;
    var model = document.getElementById("model");
    if (model && s.model) model.textContent = s.model;
    var queue = document.getElementById("queue");
    if (queue && s.queue) queue.textContent = s.queue;
    var health = document.getElementById("health");
    if (health) {
      var bad = (s.checks || []).filter(function (c) { return !c.ok; });
      health.textContent = !s.ready ? "the pipeline is not armed yet" :
        bad.length ? bad[0].name + ": " + bad[0].detail : "All checks pass";
    }
  });
  es.addEventListener("update", function (e) {
    if (!progress) return;
    var j = JSON.parse(e.data);
    progress.value = j.percent;
    progress.textContent = j.percent + " %";
    document.getElementById("update-percent").textContent = j.percent;
    document.getElementById("update-phase").textContent = j.phase ?
      j.phase + (j.version ? " " + j.version : "") + (j.error ? ": " + j.error : "") : "Nothing is being installed.";
  });
  es.addEventListener("log", function (e) {
    if (!log) return;
    var atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.appendChild(document.createTextNode(JSON.parse(e.data) + "\n"));
    if (atEnd) log.scrollTop = log.scrollHeight;
  });
})();
