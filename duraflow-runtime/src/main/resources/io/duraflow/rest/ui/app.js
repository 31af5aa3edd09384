// Duraflow's web UI: plain JavaScript over the REST API (/v1), no build step. Each view is a
// function that fetches what it shows and renders it; the current view is fetched again every
// second. Routes are in the URL's hash: #/, #/jobs/<id>/<tab>, #/taskmanagers, #/results, #/config.
"use strict";
(() => {
  const POLL_MS = 1000;
  const COLORS = { RUNNING: "#1f6feb", DEPLOYING: "#1f6feb", FINISHED: "#1a7f37", FAILED: "#cf222e",
    CANCELED: "#8c959f", CANCELING: "#8c959f", CREATED: "#9a6700" };
  const view = document.getElementById("view");
  let token = sessionStorage.getItem("duraflow.token") || "";
  let busy = false, generation = 0;
  const ui = { confirmCancel: null, chart: null };

  // ------------------------------------------------------------------ the API

  class ApiError extends Error {
    constructor(status, body) { super(body && body.message || ("HTTP " + status)); this.status = status; this.body = body; }
  }

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    if (method !== "GET") headers["Content-Type"] = "application/json";
    const response = await fetch("/v1" + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    const json = text ? JSON.parse(text) : null;
    if (response.status === 401) { askForToken(json && json.message); throw new ApiError(401, json); }
    if (!response.ok) throw new ApiError(response.status, json);
    return json;
  }

  function askForToken(message) {
    const form = document.getElementById("token-form");
    form.hidden = false;
    document.getElementById("token-error").textContent = token ? (message || "wrong token") : "";
  }

  document.getElementById("token-form").addEventListener("submit", event => {
    event.preventDefault();
    token = document.getElementById("token-input").value.trim();
    sessionStorage.setItem("duraflow.token", token);
    document.getElementById("token-form").hidden = true;
    refresh();
  });

  // ------------------------------------------------------------------ submitting a job's jar

  const submitForm = document.getElementById("submit-form");
  document.getElementById("submit-open").addEventListener("click", event => {
    event.preventDefault();
    submitForm.hidden = false;
  });
  document.getElementById("submit-close").addEventListener("click", () => { submitForm.hidden = true; });
  submitForm.addEventListener("submit", async event => {
    event.preventDefault();
    const error = document.getElementById("submit-error");
    error.textContent = "";
    const file = document.getElementById("submit-jar").files[0];
    const params = {};
    for (const line of document.getElementById("submit-params").value.split("\n")) {
      if (!line.trim()) continue;
      const eq = line.indexOf("=");
      if (eq < 1) { error.textContent = `parameter '${line.trim()}' is not key=value`; return; }
      params[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
    }
    const submission = { params, parallelism: Number(document.getElementById("submit-parallelism").value || 0) };
    const jobClass = document.getElementById("submit-class").value.trim();
    if (jobClass) submission.jobClass = jobClass;
    const headers = { Accept: "application/json", "Content-Type": "application/java-archive" };
    if (token) headers.Authorization = "Bearer " + token;
    const query = "?submission=" + encodeURIComponent(JSON.stringify(submission)) + "&fileName=" + encodeURIComponent(file.name);
    document.getElementById("submit-send").disabled = true;
    try {
      const response = await fetch("/v1/jobs" + query, { method: "POST", headers, body: file });
      const json = await response.json();
      if (!response.ok) { error.textContent = json.message || ("HTTP " + response.status); return; }
      submitForm.hidden = true;
      location.hash = "#/jobs/" + encodeURIComponent(json.jobId);
    } catch (e) {
      error.textContent = e.message;
    } finally {
      document.getElementById("submit-send").disabled = false;
    }
  });

  // ------------------------------------------------------------------ formatting

  const esc = s => String(s ?? "").replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const num = n => Number(n || 0).toLocaleString("en-US");
  const rate = n => Number(n || 0) >= 100 ? num(Math.round(n)) : Number(n || 0).toFixed(1);
  function bytes(n) {
    n = Number(n || 0);
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
  }
  const time = ms => ms ? new Date(Number(ms)).toLocaleTimeString("en-GB", { hour12: false }) + "." + String(Number(ms) % 1000).padStart(3, "0") : "";
  const dateTime = ms => ms ? new Date(Number(ms)).toLocaleString("en-GB", { hour12: false }) : "";
  function duration(ms) {
    ms = Math.max(0, Number(ms || 0));
    if (ms < 1000) return ms + " ms";
    const s = ms / 1000;
    if (s < 60) return s.toFixed(1) + " s";
    const m = Math.floor(s / 60);
    return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
  }
  const badge = state => `<span class="state state-${esc(state)}">${esc(state)}</span>`;
  const jobState = job => job.resultUnreadable ? "UNKNOWN" : String(job.state).replace(/^JOB_/, "");
  const isTerminal = s => ["FINISHED", "FAILED", "CANCELED", "UNKNOWN"].includes(s);
  function bar(busyMs, bpMs) {
    return `<span class="bar" title="busy ${Math.round(busyMs / 10)} %, backpressured ${Math.round(bpMs / 10)} %">` +
      `<span class="busy" style="width:${Math.min(100, busyMs / 10)}%; float:left"></span>` +
      `<span class="bp" style="width:${Math.min(100, bpMs / 10)}%; float:left"></span></span>`;
  }

  // A vertex's state from its subtasks' (a vertex whose parallelism is not decided yet is CREATED).
  function vertexState(v) {
    const states = v.tasks.map(t => t.state);
    if (states.length === 0) return "CREATED";
    for (const s of ["FAILED", "RUNNING", "DEPLOYING", "CANCELING"]) if (states.includes(s)) return s;
    if (states.every(s => s === "FINISHED")) return "FINISHED";
    if (states.every(s => s === "CANCELED" || s === "FINISHED")) return "CANCELED";
    return states.includes("FINISHED") ? "RUNNING" : "CREATED";
  }

  // ------------------------------------------------------------------ views

  async function jobsView() {
    const [overview, list] = await Promise.all([api("GET", "/overview"), api("GET", "/jobs")]);
    const running = list.jobs.filter(j => !isTerminal(jobState(j)));
    const ended = list.jobs.filter(j => isTerminal(jobState(j))).reverse().slice(0, 20);
    return `<h1>Jobs</h1>
      <div class="cards">
        <div class="stat"><b id="stat-running">${overview.runningJobs}</b>running jobs</div>
        <div class="stat"><b>${overview.taskManagers}</b>TaskManagers</div>
        <div class="stat"><b>${overview.freeSlots} / ${overview.slots}</b>free slots</div>
        ${Object.entries(overview.jobsByState).filter(([s]) => isTerminal(s)).map(([s, n]) =>
          `<div class="stat"><b>${n}</b>${esc(s.toLowerCase())}</div>`).join("")}
      </div>
      <h2>Running</h2>${jobTable(running, true)}
      <h2>Recently ended <a class="muted" href="#/results">(all results)</a></h2>${jobTable(ended, false)}`;
  }

  function jobTable(jobs, live) {
    if (jobs.length === 0) return `<p class="muted">None.</p>`;
    const now = Date.now();
    return `<table class="jobs"><tr><th>Job</th><th>Name</th><th>State</th><th>Submitted</th><th class="num">Duration</th>
      <th class="num">Restarts</th><th class="num">Kept by a failover</th></tr>` + jobs.map(j => {
      const state = jobState(j);
      const end = Number(j.endedAtMs) || (live ? now : 0);
      return `<tr data-job-id="${esc(j.jobId)}"><td><a href="#/jobs/${encodeURIComponent(j.jobId)}">${esc(j.jobId)}</a></td>
        <td>${esc(j.jobName)}</td><td>${badge(state)}</td><td>${dateTime(j.submittedAtMs)}</td>
        <td class="num">${j.submittedAtMs && end ? duration(end - j.submittedAtMs) : ""}</td>
        <td class="num">${j.restarts}</td><td class="num">${j.restoredTasks || ""}</td></tr>`;
    }).join("") + `</table>`;
  }

  async function resultsView() {
    const list = await api("GET", "/jobs");
    const ended = list.jobs.filter(j => isTerminal(jobState(j))).reverse();
    return `<h1>Job result store</h1>
      <p class="muted">Jobs that ended: each result is stored durably before anyone is told the outcome, and a job
      with a result never runs again. Newest first; older ones are read from the store on request.</p>
      <table><tr><th>Job</th><th>Name</th><th>State</th><th>Submitted</th><th>Ended</th><th class="num">Duration</th><th>Cause</th></tr>` +
      ended.map(j => `<tr data-job-id="${esc(j.jobId)}"><td><a href="#/jobs/${encodeURIComponent(j.jobId)}">${esc(j.jobId)}</a></td>
        <td>${esc(j.jobName)}</td><td>${badge(jobState(j))}</td><td>${dateTime(j.submittedAtMs)}</td><td>${dateTime(j.endedAtMs)}</td>
        <td class="num">${j.endedAtMs ? duration(j.endedAtMs - j.submittedAtMs) : ""}</td><td>${esc(j.failure)}</td></tr>`).join("") +
      `</table>${ended.length === 0 ? `<p class="muted">No results yet.</p>` : ""}`;
  }

  async function taskManagersView() {
    const { taskManagers } = await api("GET", "/taskmanagers");
    return `<h1>TaskManagers</h1><table><tr><th>Id</th><th>Address</th><th class="num">Slots (free)</th>
      <th class="num">Heap used (peak)</th><th class="num">Network memory in use</th><th class="num">Partitions held</th></tr>` +
      taskManagers.map(tm => `<tr data-tm-id="${esc(tm.tmId)}"><td>${esc(tm.tmId)}</td><td>${esc(tm.address)}</td>
        <td class="num">${tm.slots} (${tm.freeSlots})</td><td class="num">${bytes(tm.heapUsedBytes)} (${bytes(tm.peakHeapUsedBytes)})</td>
        <td class="num">${bytes(tm.networkBytesInUse)} of ${bytes(tm.networkBytesTotal)}</td>
        <td class="num">${tm.partitions} (${bytes(tm.partitionBytes)})</td></tr>`).join("") + `</table>` +
      (taskManagers.length === 0 ? `<p class="muted">No TaskManager registered.</p>` : "");
  }

  async function configView() {
    const { options } = await api("GET", "/config");
    return `<h1>Configuration</h1><p class="muted">This JobManager's options; set ones first.</p>
      <table><tr><th>Key</th><th>Value</th><th>Default</th><th>Description</th></tr>` +
      options.slice().sort((a, b) => (b.set - a.set) || a.key.localeCompare(b.key)).map(o =>
        `<tr><td><code>${esc(o.key)}</code></td><td>${o.set ? "<b>" + esc(o.value) + "</b>" : esc(o.value ?? "")}</td>
        <td class="muted">${esc(o.default ?? "")}</td><td>${esc(o.description)}</td></tr>`).join("") + `</table>`;
  }

  // ------------------------------------------------------------------ one job

  async function jobView(jobId, tab) {
    const job = await api("GET", "/jobs/" + encodeURIComponent(jobId));
    const state = jobState(job);
    const streaming = job.mode === "STREAMING";
    const tabs = [["graph", "Graph"], ["subtasks", "Subtasks"]];
    if (streaming) tabs.push(["checkpoints", "Checkpoints"]);
    if (job.mode === "BATCH") tabs.push(["recovery", "Recovery timeline"]);
    if (!tabs.some(([t]) => t === tab)) tab = "graph";
    let body;
    if (tab === "subtasks") body = subtasks(job);
    else if (tab === "checkpoints") body = await checkpoints(jobId);
    else if (tab === "recovery") body = await recovery(jobId, job);
    else body = graph(job);
    const cancel = isTerminal(state) || state === "CANCELLING" ? "" : ui.confirmCancel === jobId
      ? `<button id="cancel-confirm" class="danger confirm">Really cancel ${esc(jobId)}</button> <button id="cancel-abort">Keep it running</button>`
      : `<button id="cancel-job" class="danger">Cancel job</button>`;
    const kept = job.restoredTasks > 0 ? ` \u00b7 <b>${job.restoredTasks}</b> finished tasks kept through a JobManager failover` : "";
    return { after: tab === "checkpoints" ? drawChart : tab === "graph" ? () => drawGraph(job) : null, html: `
      <h1>${esc(job.jobName || jobId)} <span class="muted">${esc(jobId)}</span></h1>
      <div class="actions"><span id="job-state" data-state="${esc(state)}">${badge(state)}</span>
        <span class="muted">${esc(job.mode.toLowerCase())} \u00b7 submitted ${dateTime(job.submittedAtMs)}
        ${job.endedAtMs ? " \u00b7 ended " + dateTime(job.endedAtMs) : ""} \u00b7 ${job.restarts} restarts${kept}</span>
        <span style="flex:1"></span>${cancel}<span id="action-error" class="error"></span></div>
      ${job.failure ? `<p class="error">${esc(job.failure)}</p>` : ""}
      ${job.waitingFor ? `<p class="error" id="job-waiting">Waiting: ${esc(job.waitingFor)}</p>` : ""}
      ${job.eventLog && job.eventLog.stoppedCause ? `<p class="error">Job event log stopped: ${esc(job.eventLog.stoppedCause)}</p>` : ""}
      <div class="tabs">${tabs.map(([t, label]) => `<a href="#/jobs/${encodeURIComponent(jobId)}/${t}" data-tab="${t}"
        class="${t === tab ? "active" : ""}">${label}</a>`).join("")}</div>
      <div id="tab-${tab}">${body}</div>` };
  }

  function vertexLines(v) {
    const p = v.parallelism || "?";
    const first = `${v.finished}/${p} finished, ${v.running} running`;
    if (v.rates) {
      return [first, `${rate(v.rates.recordsInPerSecond)} in/s \u00b7 ${rate(v.rates.recordsOutPerSecond)} out/s \u00b7 busy ${Math.round(v.rates.busyMsPerSecond / 10)}% \u00b7 bp ${Math.round(v.rates.backpressuredMsPerSecond / 10)}%`];
    }
    return [first, `${num(v.recordsIn)} in \u00b7 ${num(v.recordsOut)} out`];
  }

  function graph(job) {
    return `<div id="dag"></div>
      <h2>Vertices</h2><table><tr><th>Vertex</th><th>State</th><th class="num">Parallelism</th><th class="num">Finished</th>
      <th class="num">Running</th><th class="num">Records in</th><th class="num">Records out</th><th class="num">In/s</th>
      <th class="num">Out/s</th><th>Busy / backpressured</th><th class="num">Attempts</th></tr>` +
      job.vertices.map(v => `<tr data-vertex-id="${v.id}"><td>${esc(v.name)}</td><td>${badge(vertexState(v))}</td>
        <td class="num">${v.parallelism || "?"}</td><td class="num">${v.finished}</td><td class="num">${v.running}</td>
        <td class="num">${num(v.recordsIn)}</td><td class="num">${num(v.recordsOut)}</td>
        <td class="num">${v.rates ? rate(v.rates.recordsInPerSecond) : ""}</td><td class="num">${v.rates ? rate(v.rates.recordsOutPerSecond) : ""}</td>
        <td>${v.rates ? bar(v.rates.busyMsPerSecond, v.rates.backpressuredMsPerSecond) + ` ${Math.round(v.rates.busyMsPerSecond / 10)}% / ${Math.round(v.rates.backpressuredMsPerSecond / 10)}%` : ""}</td>
        <td class="num">${v.attempts}</td></tr>`).join("") + `</table>`;
  }

  function drawGraph(job) {
    const container = document.getElementById("dag");
    if (container) Dag.render(container, job.vertices, vertexState, vertexLines, COLORS);
  }

  function subtasks(job) {
    return `<table id="subtasks"><tr><th>Vertex</th><th class="num">Subtask</th><th class="num">Attempt</th><th>State</th>
      <th>TaskManager</th><th class="num">Records in</th><th class="num">Records out</th><th class="num">In/s</th>
      <th>Busy / backpressured</th><th>After a JobManager failover</th></tr>` +
      job.vertices.flatMap(v => v.tasks.map((t, i) => `<tr data-vertex-id="${v.id}" data-subtask="${i}" data-attempt="${t.attempt}">
        <td>${esc(v.name)}</td><td class="num">${i}</td><td class="num">#${t.attempt}</td><td>${badge(t.state)}</td>
        <td>${esc(t.tmId)}</td><td class="num">${num(t.recordsIn)}</td><td class="num">${num(t.recordsOut)}</td>
        <td class="num">${t.rates ? rate(t.rates.recordsInPerSecond) : ""}</td>
        <td>${t.rates ? bar(t.rates.busyMsPerSecond, t.rates.backpressuredMsPerSecond) : ""}</td>
        <td>${t.recovery ? badge(t.recovery) : ""}</td></tr>`)).join("") + `</table>`;
  }

  let chartData = null;

  async function checkpoints(jobId) {
    let c;
    try {
      c = await api("GET", "/jobs/" + encodeURIComponent(jobId) + "/checkpoints");
    } catch (e) {
      if (e.status === 409 || e.status === 404) return `<p class="muted">${esc(e.message)}</p>`;
      throw e;
    }
    const list = c.checkpoints;
    const soft = list.filter(x => x.failureReason === "SNAPSHOT_UNAVAILABLE_SOFT").length;
    const hard = list.filter(x => x.failureReason === "SNAPSHOT_UNAVAILABLE_HARD").length;
    const done = list.filter(x => x.status === "COMPLETED");
    chartData = [done.map(x => x.checkpointId), done.map(x => x.durationMs), done.map(x => x.stateSizeBytes / 1024),
      done.map(x => x.filesUploaded)];
    return `<div class="cards">
        <div class="stat"><b>${c.completed}</b>completed</div><div class="stat"><b>${c.failed}</b>failed</div>
        <div class="stat"><b>${soft}</b>declined softly (shown)</div><div class="stat"><b>${hard}</b>declined hard (shown)</div>
        <div class="stat"><b>${c.intervalMs ? duration(c.intervalMs) : "off"}</b>interval</div>
        <div class="stat"><b>${c.latestCompletedId || "-"}</b>latest completed</div>
        ${c.restoredFromId ? `<div class="stat"><b>${c.restoredFromId}</b>restored from</div>` : ""}</div>
      <h2>Duration, size and files of completed checkpoints</h2><div id="chart"></div>
      <h2>History</h2><table id="checkpoints"><tr><th class="num">Id</th><th>Kind</th><th>Status</th><th>Triggered</th>
      <th class="num">Duration</th><th class="num">Full size</th><th class="num">Written</th><th class="num">Files uploaded</th>
      <th class="num">Reused</th><th>Failure / path</th></tr>` +
      list.slice().reverse().map(x => {
        const decline = x.failureReason === "SNAPSHOT_UNAVAILABLE_SOFT" ? " " + badge("SOFT")
          : x.failureReason === "SNAPSHOT_UNAVAILABLE_HARD" ? " " + badge("HARD") : "";
        return `<tr data-checkpoint-id="${x.checkpointId}"><td class="num">${x.checkpointId}</td><td>${esc(x.kind)}</td>
        <td>${badge(x.status)}${decline}</td><td>${time(x.triggerMs)}</td><td class="num">${duration(x.durationMs)}</td>
        <td class="num">${bytes(x.stateSizeBytes)}</td><td class="num">${bytes(x.checkpointedSizeBytes)}</td>
        <td class="num">${x.filesUploaded}</td><td class="num">${x.filesReused}</td>
        <td>${x.failureReason ? esc(x.failureReason + ": " + x.failureMessage + (x.failureTask ? " (" + x.failureTask + ")" : "")) : esc(x.path)}</td></tr>`;
      }).join("") + `</table>`;
  }

  function drawChart() {
    const container = document.getElementById("chart");
    if (!container || !chartData || typeof uPlot === "undefined") return;
    const opts = { width: Math.max(400, container.clientWidth - 16), height: 240,
      scales: { x: { time: false }, ms: {}, kib: {}, files: {} },
      axes: [{ label: "checkpoint" }, { scale: "ms", label: "duration (ms)" },
        { scale: "kib", side: 1, label: "full size (KiB)", grid: { show: false } },
        { scale: "files", side: 1, label: "files", grid: { show: false } }],
      series: [{ label: "checkpoint" }, { label: "duration ms", scale: "ms", stroke: "#1f6feb", width: 2 },
        { label: "full size KiB", scale: "kib", stroke: "#1a7f37", width: 2 },
        { label: "files uploaded", scale: "files", stroke: "#bc4c00", width: 2 }] };
    ui.chart = new uPlot(opts, chartData, container);
  }

  // The recovery timeline: the job's event log (what batch job recovery replays), with the moment a
  // new leader took the job over, what it kept and what ran again.
  async function recovery(jobId, job) {
    // An ended job's event log is deleted with its other data; what the leader made of the
    // take-over is still part of the job, so the failover and the subtask grid stay visible.
    let events, gone = "";
    try {
      events = await api("GET", "/jobs/" + encodeURIComponent(jobId) + "/events");
    } catch (e) {
      if (e.status !== 404) throw e;
      events = { entries: [], warnings: [] };
      gone = e.message;
    }
    const names = new Map(job.vertices.map(v => [v.id, v.name]));
    const kept = [], adopted = [], again = [];
    for (const v of job.vertices) v.tasks.forEach((t, i) => {
      if (t.recovery === "KEPT") kept.push(`v${v.id}/${i}#${t.attempt}`);
      if (t.recovery === "ADOPTED") adopted.push(`v${v.id}/${i}#${t.attempt}`);
      if (t.recovery === "RUN_AGAIN") again.push(`v${v.id}/${i}#${t.attempt}`);
    });
    const failover = Number(job.takenOverAtMs) || 0;
    const elected = Number(job.leaderElectedAtMs) || 0;
    const items = [];
    let marked = false;
    const failoverItem = () => `<li class="failover" id="failover"><time>${time(failover)}</time><b>JobManager failover:</b>
      this leader took the job over, kept <b id="kept-count">${kept.length}</b> finished tasks
      (${esc(kept.join(", ")) || "none"}), adopted <b id="adopted-count">${adopted.length}</b> running tasks
      (${esc(adopted.join(", ")) || "none"}) and runs <b id="again-count">${again.length}</b> again
      (${esc(again.join(", ")) || "none"}).</li>`;
    for (const e of events.entries) {
      if (failover && !marked && Number(e.timestampMs) > failover) { items.push(failoverItem()); marked = true; }
      items.push(`<li class="${esc(e.kind)}"><time>${time(e.timestampMs)}</time>${esc(e.text)}</li>`);
    }
    if (failover && !marked) items.push(failoverItem());
    const grid = job.vertices.map(v => `<div><span class="muted">${esc(names.get(v.id))}</span><div class="grid">` +
      v.tasks.map((t, i) => `<span class="cell ${esc(t.recovery)}" title="subtask ${i} attempt #${t.attempt} ${esc(t.state)} ${esc(t.recovery)}"></span>`).join("") +
      `</div></div>`).join("");
    return `<p>${failover ? `A new leader took this job over at ${time(failover)}${elected
      ? `, <span id="takeover-ms">${(failover - elected).toLocaleString()}</span> ms after its election (when the crash was detected)`
      : ""}.` : "No JobManager failover while this job ran."}
      ${gone ? esc(gone) : `${events.entries.length} events recorded${events.warnings.length ? "; " + esc(events.warnings.join("; ")) : ""}`}.</p>
      ${failover ? `<div class="legend"><span>${badge("KEPT")} finished before the failover, not run again</span>
        <span>${badge("ADOPTED")} kept running through the failover, not run again</span>
        <span>${badge("RUN_AGAIN")} ran again with a higher attempt</span></div>${grid}` : ""}
      <h2>Events</h2><ul class="timeline" id="timeline">${items.join("")}</ul>`;
  }

  // ------------------------------------------------------------------ routing and polling

  function route() {
    const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    if (parts[0] === "jobs" && parts[1]) return { name: "jobs", run: () => jobView(parts[1], parts[2] || "graph"), jobId: parts[1] };
    if (parts[0] === "taskmanagers") return { name: "taskmanagers", run: taskManagersView };
    if (parts[0] === "results") return { name: "results", run: resultsView };
    if (parts[0] === "config") return { name: "config", run: configView };
    return { name: "jobs", run: jobsView };
  }

  async function refresh() {
    if (busy) return;
    busy = true;
    const mine = ++generation;
    const current = route();
    document.querySelectorAll("[data-nav]").forEach(a => a.classList.toggle("active", a.dataset.nav === current.name));
    try {
      const result = await current.run();
      if (mine !== generation) return;
      const { html, after } = typeof result === "string" ? { html: result, after: null } : result;
      const scroll = window.scrollY;
      if (ui.chart) { ui.chart.destroy(); ui.chart = null; }
      view.innerHTML = html;
      if (after) after();
      window.scrollTo(0, scroll);
      document.getElementById("banner").hidden = true;
      document.getElementById("live").classList.remove("stale");
    } catch (e) {
      document.getElementById("live").classList.add("stale");
      if (e.status !== 401) {
        const banner = document.getElementById("banner");
        banner.hidden = false;
        banner.textContent = e instanceof ApiError ? `${e.status}: ${e.message}` : "The JobManager does not answer: " + e.message;
      }
    } finally {
      busy = false;
    }
  }

  async function leader() {
    try {
      const overview = await api("GET", "/overview");
      document.getElementById("leader").textContent = "leader " + overview.leader.address;
    } catch (e) { /* shown by the view */ }
  }

  view.addEventListener("click", async event => {
    const target = event.target;
    const r = route();
    if (target.id === "cancel-job") { ui.confirmCancel = r.jobId; refresh(); }
    if (target.id === "cancel-abort") { ui.confirmCancel = null; refresh(); }
    if (target.id === "cancel-confirm") {
      ui.confirmCancel = null;
      try {
        await api("POST", "/jobs/" + encodeURIComponent(r.jobId) + "/cancel", {});
      } catch (e) {
        const error = document.getElementById("action-error");
        if (error) error.textContent = e.message;
      }
      refresh();
    }
  });

  window.addEventListener("hashchange", () => { ui.confirmCancel = null; refresh(); });
  refresh();
  leader();
  setInterval(refresh, POLL_MS);
  setInterval(leader, 5 * POLL_MS);
})();
