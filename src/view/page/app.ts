/** The rollout viewer page: Summary, Rollouts (virtualised list + trajectory) and Compare views. */
import { selectRows, type RowFilter } from "../query.ts";
import { compareRuns, summarize, type Dist } from "../summary.ts";
import { el, fill, fmt, type Child } from "./dom.ts";
import { openSource, type RunInfo, type Source } from "./source.ts";
import { folded, trajectory } from "./trajectory.ts";

const ROW_H = 26;
const root = document.getElementById("app")!;

function histogram(d: Dist, label: string): HTMLElement {
  const max = Math.max(...d.bins, 1);
  const bars = el("div", { class: "hist", title: label });
  d.bins.forEach((c, i) => {
    const lo = d.min + ((d.max - d.min) * i) / d.bins.length;
    bars.append(el("div", { class: "bar", style: `height:${Math.max(2, (c / max) * 100)}%`, title: `≥ ${fmt(lo)}: ${c}` }));
  });
  return el("div", { class: "card" }, el("h4", {}, label), bars, el("div", { class: "dim" }, `n=${d.n}  min ${fmt(d.min)}  p50 ${fmt(d.p50)}  p90 ${fmt(d.p90)}  p99 ${fmt(d.p99)}  max ${fmt(d.max)}  mean ${fmt(d.mean)}`));
}

function banners(run: RunInfo): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (run.note) out.push(el("div", { class: "banner" }, run.note));
  if (run.metas.length === 0) out.push(el("div", { class: "banner" }, `${run.path} holds no rollouts yet.`));
  if (run.bad.count) out.push(el("div", { class: "banner", "data-testid": "bad-lines" }, `${run.bad.count} line(s) are not JSON objects and were skipped (first: ${run.bad.first.join(", ")}).`));
  if (run.torn) out.push(el("div", { class: "banner" }, "The file ends in a partial line (a run still writing, or one that crashed mid-write); it was skipped."));
  return out;
}

function summaryView(src: Source): HTMLElement {
  const box = el("div", { class: "summary" });
  src.runs.forEach((run, r) => {
    const s = summarize(run.metas);
    const head = el("table", { class: "kv" });
    const kv = (k: string, v: string) => head.append(el("tr", {}, el("th", {}, k), el("td", {}, v)));
    kv("rows", String(s.rows));
    kv("mean reward", fmt(s.meanReward));
    for (const p of s.passAtK) kv(`pass@${p.k}`, fmt(p.value));
    kv("failures", String(s.failures.reduce((a, f) => a + f.count, 0)));
    const agents = el("table", { class: "grid" }, el("tr", {}, el("th", {}, "agent"), el("th", {}, "rows"), el("th", {}, "mean reward")));
    for (const a of s.perAgent) agents.append(el("tr", {}, el("td", {}, a.agent || "(none)"), el("td", {}, a.rows), el("td", {}, fmt(a.meanReward))));
    const fails = el("table", { class: "grid", "data-testid": "failures" }, el("tr", {}, el("th", {}, "failure type"), el("th", {}, "count")));
    for (const f of s.failures) fails.append(el("tr", {}, el("td", {}, f.type), el("td", {}, f.count)));
    const parts: Child[] = [
      el("h3", {}, src.runs.length > 1 ? `${r === 0 ? "A" : "B"}: ${run.path}` : run.path),
      ...banners(run),
      el("div", { class: "cards" }, el("div", { class: "card" }, head), el("div", { class: "card" }, el("h4", {}, "per agent"), agents), s.failures.length ? el("div", { class: "card" }, el("h4", {}, "failures by type"), fails) : null),
      el("div", { class: "cards" }, s.reward ? histogram(s.reward, "reward") : null, s.tokens ? histogram(s.tokens, "tokens") : null, s.latency ? histogram(s.latency, "latency (s)") : null),
      run.aggregate ? folded("aggregate metrics (from the run)", run.aggregate) : null,
    ];
    for (const p of parts) if (p) box.append(p as Node);
  });
  return box;
}

function copy(text: string): void {
  void navigator.clipboard?.writeText(text).catch(() => undefined);
}

function listView(src: Source, run: number, open: (i: number) => void): HTMLElement {
  const info = src.runs[run]!;
  const agents = [...new Set(info.metas.map((m) => m.agent))].sort();
  const failures = [...new Set(info.metas.map((m) => m.failure).filter((f): f is string => f !== null))].sort();
  const f: RowFilter = {};
  let textQ = "";
  let rows: number[] = [];
  const count = el("span", { class: "count", "data-testid": "count" });
  const spacer = el("div", { class: "spacer" });
  const viewport = el("div", { class: "viewport", "data-testid": "list" }, spacer);
  const numOr = (v: string) => (v.trim() === "" || Number.isNaN(Number(v)) ? undefined : Number(v));
  const paint = () => {
    const top = viewport.scrollTop, h = viewport.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - 5), last = Math.min(rows.length, Math.ceil((top + h) / ROW_H) + 5);
    const kids: HTMLElement[] = [];
    for (let k = first; k < last; k++) {
      const i = rows[k]!, m = info.metas[i]!;
      kids.push(
        el("div", { class: `row${m.failure ? " failed" : ""}`, style: `top:${k * ROW_H}px`, "data-row": i, onclick: () => open(i) },
          el("span", { class: "c-line" }, `${m.src ? "F" : ""}${m.line}`),
          el("span", { class: "c-task" }, m.task ?? "–"),
          el("span", { class: "c-roll" }, m.rollout ?? "–"),
          el("span", { class: "c-agent" }, m.agent),
          el("span", { class: "c-reward" }, m.failure ?? fmt(m.reward)),
          el("span", { class: "c-tok" }, fmt(m.tokens)),
          el("span", { class: "c-lat" }, fmt(m.latency))),
      );
    }
    spacer.style.height = `${rows.length * ROW_H}px`;
    fill(spacer, ...kids);
  };
  const apply = async () => {
    f.textHits = textQ ? await src.search(run, textQ) : undefined;
    rows = selectRows(info.metas, f);
    count.textContent = `${rows.length} of ${info.metas.length} rows`;
    viewport.scrollTop = 0;
    paint();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void apply(), 200);
  };
  viewport.addEventListener("scroll", () => requestAnimationFrame(paint));
  const input = (name: string, ph: string, set: (v: string) => void, type = "text") => el("input", { name, placeholder: ph, type, oninput: (e) => (set((e.target as HTMLInputElement).value), later()) });
  const select = (name: string, opts: [string, string][], set: (v: string) => void) => el("select", { name, onchange: (e) => (set((e.target as HTMLSelectElement).value), void apply()) }, ...opts.map(([v, l]) => el("option", { value: v }, l)));
  const controls = el(
    "div",
    { class: "controls" },
    input("q", "search prompts and outputs", (v) => (textQ = v.trim())),
    input("rmin", "reward ≥", (v) => (f.rewardMin = numOr(v)), "number"),
    input("rmax", "reward ≤", (v) => (f.rewardMax = numOr(v)), "number"),
    input("task", "task index", (v) => (f.task = numOr(v)), "number"),
    select("agent", [["", "all agents"], ...agents.map((a): [string, string] => [a, a || "(none)"])], (v) => (f.agent = v)),
    select("failure", [["", "all rows"], ["none", "successes only"], ["any", "failures only"], ...failures.map((x): [string, string] => [x, `failure: ${x}`])], (v) => (f.failure = v)),
    select("sort", [["line", "file order"], ["reward", "reward"], ["tokens", "tokens"], ["latency", "latency"]], (v) => (f.sort = v as RowFilter["sort"])),
    el("label", {}, el("input", { type: "checkbox", name: "desc", onchange: (e) => ((f.desc = (e.target as HTMLInputElement).checked), void apply()) }), "descending"),
    count,
  );
  const header = el("div", { class: "row head" }, ...["line", "task", "rollout", "agent", "reward", "tokens", "latency"].map((h, i) => el("span", { class: ["c-line", "c-task", "c-roll", "c-agent", "c-reward", "c-tok", "c-lat"][i]! }, h)));
  void apply();
  return el("div", { class: "list" }, ...banners(info), controls, header, viewport);
}

function rowPanel(src: Source, run: number, i: number): HTMLElement {
  const m = src.runs[run]!.metas[i]!;
  const file = m.src ? src.runs[run]!.path.replace(/(\.[^./]*)?$/, "_failures.jsonl") : src.runs[run]!.path;
  const panel = el("div", { class: "panel", "data-testid": "trajectory" }, el("div", { class: "dim" }, "loading…"));
  src.row(run, i).then(
    (t) => fill(panel, trajectory(t, `${file}:${m.line}`, copy)),
    (e: Error) => fill(panel, el("div", { class: "banner" }, `cannot load row: ${e.message}`)),
  );
  return panel;
}

function compareView(src: Source, openPair: (task: number) => void): HTMLElement {
  const deltas = compareRuns(src.runs[0]!.metas, src.runs[1]!.metas);
  const flipped = deltas.filter((d) => d.flipped);
  let onlyFlipped = true;
  const table = el("table", { class: "grid", "data-testid": "compare" });
  const draw = () => {
    fill(table, el("tr", {}, el("th", {}, "task"), el("th", {}, "mean A"), el("th", {}, "mean B"), el("th", {}, "")));
    for (const d of onlyFlipped ? flipped : deltas)
      table.append(el("tr", { class: d.flipped ? "flipped" : "", onclick: () => openPair(d.task) }, el("td", {}, d.task), el("td", {}, fmt(d.meanA)), el("td", {}, fmt(d.meanB)), el("td", {}, d.flipped ? ((d.meanB ?? 0) > (d.meanA ?? 0) ? "fixed in B" : "broken in B") : "")));
  };
  draw();
  return el(
    "div",
    { class: "compare" },
    el("p", {}, `${flipped.length} of ${deltas.length} tasks flipped (passed, mean reward ≥ 0.5, in one run and not in the other). A = ${src.runs[0]!.path}, B = ${src.runs[1]!.path}.`),
    el("label", {}, el("input", { type: "checkbox", checked: true, onchange: (e) => ((onlyFlipped = (e.target as HTMLInputElement).checked), draw()) }), "flipped tasks only"),
    table,
  );
}

async function main(): Promise<void> {
  let src: Source;
  try {
    src = await openSource();
  } catch (e) {
    fill(root, el("div", { class: "banner" }, `cannot load rollouts: ${(e as Error).message}`));
    return;
  }
  const body = el("div", { class: "body" });
  const tabs = el("nav", {});
  const show = (name: string, build: () => HTMLElement) => {
    for (const b of tabs.querySelectorAll("button")) b.classList.toggle("on", b.dataset.tab === name);
    fill(body, build());
  };
  const side = el("div", { class: "side" });
  const listFor = (run: number) => () => {
    const wrap = el("div", { class: "split" });
    wrap.append(listView(src, run, (i) => fill(side, rowPanel(src, run, i))), side);
    fill(side, el("div", { class: "dim" }, "Click a row to open its trajectory."));
    return wrap;
  };
  const tab = (name: string, label: string, build: () => HTMLElement) => el("button", { type: "button", "data-tab": name, onclick: () => show(name, build) }, label);
  tabs.append(tab("summary", "Summary", () => summaryView(src)), tab("list", src.runs.length > 1 ? "Rollouts A" : "Rollouts", listFor(0)));
  if (src.runs.length > 1) {
    tabs.append(tab("listb", "Rollouts B", listFor(1)));
    const pair = (task: number) => {
      const pick = (r: number) => src.runs[r]!.metas.findIndex((m) => m.task === task);
      const a = pick(0), b = pick(1);
      const sideBySide = el("div", { class: "pair", "data-testid": "pair" }, a >= 0 ? rowPanel(src, 0, a) : el("div", {}, "no rollout in A"), b >= 0 ? rowPanel(src, 1, b) : el("div", {}, "no rollout in B"));
      fill(body, compareView(src, pair), el("h3", {}, `task ${task}: A | B`), sideBySide);
    };
    tabs.append(tab("compare", "Compare", () => compareView(src, pair)));
  }
  fill(root, el("header", {}, el("strong", {}, "gym eval view"), tabs), body);
  show("summary", () => summaryView(src));
  document.body.dataset.ready = "1";
}

void main();
