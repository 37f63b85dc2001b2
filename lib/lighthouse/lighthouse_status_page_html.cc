// The HTML of the lighthouse's status page: one self-contained document
// (no external assets, so it works where the lighthouse has no internet)
// whose script polls /status.json. Element ids and classes are stable: the
// Chromium test reads them.
//
// A member's row is stale (class "stale") when it is unhealthy or its last
// heartbeat is older than half the heartbeat timeout, so a member about to
// be dropped shows before it is. Text from replicas goes in with
// textContent, never as markup.
//
// The history table lists status.json's history as it comes, newest first;
// each row's data-kind is the entry's proto kind (e.g. "MEMBER_LOST").
//
// With monitors (sluice_lighthouse --monitor) the stragglers table has a
// row per straggler (class "straggler", data-rank), or one per monitor
// that names none ("monitor-quiet") or did not answer ("monitor-trouble").
//
// Over HTTPS (status.json's operator_actions) each member's row has a
// drain and a kill button (classes "drain" and "kill"). Their answer, the
// reason when refused, stays in #action-result: rows are rebuilt on every
// refresh, so the row cannot hold it.
#include <string>

#include "lib/lighthouse/lighthouse_status_page.h"

namespace sluice::lighthouse {

const std::string& StatusPageHtml() {
  static const std::string* const html = new std::string(R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sluice lighthouse</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; }
h1 #lighthouse-address { font-family: monospace; font-weight: normal; }
#error { color: #a00; font-weight: bold; }
dl#summary { display: grid; grid-template-columns: max-content auto;
             gap: 0.3em 1.2em; }
dt { font-weight: bold; }
dd { margin: 0; }
#quorum-id { font-size: 1.3em; }
table { border-collapse: collapse; margin-top: 1.2em; }
th, td { border: 1px solid #bbb; padding: 0.3em 0.7em; text-align: left; }
th { background: #eee; }
td.address, td.replica-id { font-family: monospace; }
tr.replica.stale td { background: #fdd; color: #900; }
.trouble { color: #900; font-weight: bold; }
tr.replica.recovering td.recovering { color: #a60; font-weight: bold; }
td.incarnation, td.history-replica-id { font-family: monospace; }
tr.history-entry.bad td { background: #fee; }
tr.history-entry.formed td { background: #efe; }
h2 { font-size: 1.1em; margin-top: 1.5em; }
.leader-self { color: #060; font-weight: bold; }
#action-result.refused { color: #a00; font-weight: bold; }
#action-result.done { color: #060; font-weight: bold; }
td.actions { white-space: nowrap; }
td.actions button { margin-right: 0.4em; }
tr.replica.drained td { color: #777; font-style: italic; }
</style>
</head>
<body>
<h1>Sluice lighthouse <span id="lighthouse-address"></span></h1>
<p id="error" hidden></p>
<p id="action-result" hidden></p>
<dl id="summary">
  <dt>Quorum id</dt><dd id="quorum-id">-</dd>
  <dt>Why it formed</dt><dd id="quorum-reason">-</dd>
  <dt>Formed at</dt><dd id="quorum-created">-</dd>
  <dt>Participants</dt><dd id="participants">-</dd>
  <dt>Why its generation formed</dt><dd id="generation-reason">-</dd>
  <dt>Generation formed at</dt><dd id="generation-formed">-</dd>
  <dt>Steps/s</dt><dd id="steps-per-second">-</dd>
  <dt>Steps committed</dt><dd id="committed-steps">-</dd>
  <dt>min_replicas</dt><dd id="min-replicas">-</dd>
  <dt>Heartbeat timeout</dt><dd id="heartbeat-timeout">-</dd>
  <dt>Leader</dt><dd id="leader">-</dd>
  <dt>Leading since</dt><dd id="leader-since">-</dd>
  <dt>Steps down after</dt><dd id="step-down-after">-</dd>
  <dt>Last step-down</dt><dd id="last-step-down">-</dd>
  <dt>Trouble</dt><dd id="authority-trouble">-</dd>
  <dt>Updated</dt><dd id="updated">-</dd>
</dl>
<table id="members">
<thead><tr>
  <th>replica id</th><th>step</th><th>address</th><th>in quorum</th>
  <th>recovering</th><th>requesting</th><th>healthy</th>
  <th>heartbeat age</th><th>world size</th><th>incarnation</th>
  <th id="actions-header" hidden>operator</th>
</tr></thead>
<tbody id="member-rows"></tbody>
</table>
<section id="stragglers" hidden>
<h2>Stragglers (the replica groups' step monitors)</h2>
<table>
<thead><tr>
  <th>monitor</th><th>rank</th><th>since</th><th>verdict</th>
</tr></thead>
<tbody id="straggler-rows"></tbody>
</table>
</section>
<h2>History (newest first)</h2>
<table id="history">
<thead><tr>
  <th>time</th><th>event</th><th>quorum</th><th>replica id</th>
  <th>participants</th><th>why</th>
</tr></thead>
<tbody id="history-rows"></tbody>
</table>
<script>
"use strict";
const REFRESH_MS = 500;
let updates = 0;

function setText(id, value) {
  document.getElementById(id).textContent = value;
}

function addCell(row, className, value) {
  const cell = document.createElement("td");
  cell.className = className;
  cell.textContent = value;
  row.appendChild(cell);
}

// Proto JSON writes 64-bit integers as strings and may omit zeros.
function toNumber(value) {
  return Number(value || 0);
}

function yesNo(flag) {
  return flag ? "yes" : "no";
}

function timeText(us) {
  return us > 0 ? new Date(us / 1000).toISOString() : "-";
}

const HISTORY_KINDS = {
  GENERATION_FORMED: ["generation formed", "formed"],
  MEMBER_LOST: ["member lost", "bad"],
  REPLICA_RESTARTED: ["replica restarted", "bad"],
  STEPPED_DOWN: ["stepped down", "bad"],
  LEADING: ["leading", ""],
  NOT_LEADING: ["not leading", "bad"],
  PAUSED: ["did not run", "bad"],
  AUTHORITY_TROUBLE: ["quorum authority trouble", "bad"],
  AUTHORITY_BACK: ["quorum authority back", ""],
  OPERATOR_KILLED: ["killed by the operator", "bad"],
  OPERATOR_DRAINED: ["drained by the operator", "bad"],
};

// POSTs `action` for `replicaId` and shows what the lighthouse answered.
async function act(action, replicaId) {
  const result = document.getElementById("action-result");
  let text;
  let ok = false;
  try {
    const reply = await fetch(
        "replicas/" + encodeURIComponent(replicaId) + "/" + action,
        {method: "POST", cache: "no-store"});
    ok = reply.ok;
    text = await reply.text();
  } catch (error) {
    text = action + " of replica " + replicaId + " failed: " + error.message;
  }
  result.textContent = text;
  result.className = ok ? "done" : "refused";
  result.hidden = false;
}

function addActions(row, replicaId) {
  const cell = document.createElement("td");
  cell.className = "actions";
  for (const action of ["drain", "kill"]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = action;
    button.textContent = action;
    button.addEventListener("click", () => act(action, replicaId));
    cell.appendChild(button);
  }
  row.appendChild(cell);
}

// "a (world size 1, incarnation 7), b (...) and 3 more".
function participantsText(entry) {
  const listed = (entry.participants || []).map(
      p => (p.replica_id || "") + " (world size " + toNumber(p.world_size) +
           ", incarnation " + (p.incarnation || "0") + ")");
  const more = toNumber(entry.participant_count) - listed.length;
  return listed.join(", ") + (more > 0 ? " and " + more + " more" : "");
}

function historyRow(entry) {
  // Proto JSON may omit the first kind, whose number is 0.
  const kind = entry.kind || "GENERATION_FORMED";
  const [label, tone] = HISTORY_KINDS[kind] || [kind, ""];
  const row = document.createElement("tr");
  row.className = "history-entry" + (tone ? " " + tone : "");
  row.setAttribute("data-kind", kind);
  const quorumId = toNumber(entry.quorum_id);
  addCell(row, "time", timeText(toNumber(entry.time_us)));
  addCell(row, "kind", label);
  addCell(row, "history-quorum-id", quorumId > 0 ? String(quorumId) : "");
  addCell(row, "history-replica-id", entry.replica_id || "");
  addCell(row, "participants", participantsText(entry));
  addCell(row, "reason", entry.reason || "");
  return row;
}

function stragglerRow(className, address, rank, sinceUs, verdict) {
  const row = document.createElement("tr");
  row.className = className;
  addCell(row, "monitor", address || "");
  addCell(row, "rank", rank);
  addCell(row, "since", sinceUs > 0 ? timeText(sinceUs) : "");
  addCell(row, "verdict", verdict);
  return row;
}

// A row per straggler, and one for a monitor that names none or did not
// answer, so that a monitor out of reach shows.
function stragglerRows(monitors) {
  const rows = [];
  for (const monitor of monitors) {
    const stragglers = monitor.stragglers || [];
    if (monitor.trouble) {
      rows.push(stragglerRow("monitor-trouble bad", monitor.address, "",
                             toNumber(monitor.answered_us), monitor.trouble));
    } else if (stragglers.length === 0) {
      rows.push(stragglerRow("monitor-quiet", monitor.address, "", 0,
                             "no straggler"));
    }
    for (const straggler of stragglers) {
      const rank = String(toNumber(straggler.rank));
      const row = stragglerRow("straggler bad", monitor.address, rank,
                               toNumber(straggler.since_us),
                               straggler.message || "");
      row.setAttribute("data-rank", rank);
      rows.push(row);
    }
  }
  return rows;
}

function render(status) {
  const quorum = status.quorum || {};
  const quorumId = toNumber(quorum.quorum_id);
  const timeoutMs = toNumber(status.heartbeat_timeout_ms);
  setText("lighthouse-address", status.address || "");
  setText("quorum-id", quorumId > 0 ? String(quorumId) : "none yet");
  setText("quorum-reason", quorum.reason || "-");
  const createdUs = toNumber(quorum.created_us);
  setText("quorum-created",
          createdUs > 0 ? new Date(createdUs / 1000).toISOString() : "-");
  const participants = (quorum.participants || []).map(p => p.replica_id);
  setText("participants",
          participants.length > 0 ? participants.join(", ") : "-");
  setText("generation-reason", status.generation_reason || "-");
  setText("generation-formed", timeText(toNumber(status.generation_formed_us)));
  setText("steps-per-second",
          toNumber(status.steps_per_second).toFixed(1) +
              " over about the last 10 s");
  setText("committed-steps", String(toNumber(status.committed_steps)));
  setText("min-replicas", String(toNumber(status.min_replicas)));
  setText("heartbeat-timeout", timeoutMs + " ms");
  const leader = document.getElementById("leader");
  leader.textContent = status.is_leader
      ? "this lighthouse"
      : (status.leader_address || "unknown");
  leader.className = status.is_leader ? "leader-self" : "leader-other";
  const sinceUs = toNumber(status.leader_since_us);
  setText("leader-since",
          sinceUs > 0 ? new Date(sinceUs / 1000).toISOString() : "-");
  const stepDownMs = toNumber(status.step_down_after_ms);
  setText("step-down-after",
          stepDownMs > 0 ? stepDownMs + " ms without a call from a replica"
                         : "never (alone)");
  setText("last-step-down", status.last_step_down || "never");
  const trouble = document.getElementById("authority-trouble");
  trouble.textContent = status.authority_trouble || "none";
  trouble.className = status.authority_trouble ? "trouble" : "";

  const rows = [];
  for (const member of status.replicas || []) {
    const info = member.replica || {};
    const ageMs = toNumber(member.heartbeat_age_ms);
    const stale = !member.healthy || ageMs > timeoutMs / 2;
    const row = document.createElement("tr");
    row.className = "replica" + (stale ? " stale" : "") +
                    (member.recovering ? " recovering" : "") +
                    (member.drained ? " drained" : "");
    row.setAttribute("data-replica-id", info.replica_id || "");
    addCell(row, "replica-id", info.replica_id || "");
    addCell(row, "step", String(toNumber(info.step)));
    addCell(row, "address", info.address || "");
    addCell(row, "in-quorum", yesNo(member.in_quorum));
    addCell(row, "recovering", yesNo(member.recovering));
    addCell(row, "requesting", yesNo(member.requesting));
    addCell(row, "healthy", yesNo(member.healthy));
    addCell(row, "heartbeat-age", ageMs + " ms");
    addCell(row, "world-size", String(toNumber(info.world_size)));
    addCell(row, "incarnation", info.incarnation || "0");
    if (status.operator_actions) addActions(row, info.replica_id || "");
    rows.push(row);
  }
  document.getElementById("actions-header").hidden = !status.operator_actions;
  document.getElementById("member-rows").replaceChildren(...rows);
  const monitors = status.monitors || [];
  document.getElementById("stragglers").hidden = monitors.length === 0;
  document.getElementById("straggler-rows").replaceChildren(
      ...stragglerRows(monitors));
  document.getElementById("history-rows").replaceChildren(
      ...(status.history || []).map(historyRow));
  document.body.setAttribute("data-quorum-id", String(quorumId));
  setText("updated", new Date().toISOString());
  document.getElementById("error").hidden = true;
  updates += 1;
  document.body.setAttribute("data-updates", String(updates));
}

async function refresh() {
  try {
    const reply = await fetch("status.json", {cache: "no-store"});
    if (!reply.ok) throw new Error("HTTP " + reply.status);
    render(await reply.json());
  } catch (error) {
    const banner = document.getElementById("error");
    banner.textContent = "cannot read status.json: " + error.message;
    banner.hidden = false;
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

refresh();
</script>
</body>
</html>
)html");
  return *html;
}

}  // namespace sluice::lighthouse
