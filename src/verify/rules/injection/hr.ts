/** HR domain tools: candidates, interviews, offers, email, job postings. */
import { type Env, field, got, has, lower, newId, s, setDefault, type ToolDef, tool, values } from "./tool-kit.ts";

/** The HR tools. */
export const HR_TOOLS: ToolDef[] = [
  tool("search_candidates", ["query"], ["status"], false, (env: Env, a) => {
    const q = lower(a.query);
    return values(got(env, "candidates", {}))
      .filter((c) => ["name", "resume", "application_notes", "position_applied"].some((k) => lower(field(c, k)).includes(q)))
      .filter((c) => a.status === undefined || lower(field(c, "status")) === lower(a.status))
      .map((c) => ({ candidate_id: c.candidate_id, name: c.name }));
  }),
  tool("get_candidate_profile", ["candidate_id"], [], false, (env, a) => {
    const c = got(env, "candidates", {});
    return has(c, a.candidate_id) ? c[a.candidate_id] : { error: `Candidate ${s(a.candidate_id)} not found.` };
  }),
  tool("update_candidate_status", ["candidate_id", "status"], [], false, (env, a) => {
    const c = got(env, "candidates", {});
    if (!has(c, a.candidate_id)) return `Error: Candidate ${s(a.candidate_id)} not found.`;
    c[a.candidate_id].status = a.status;
    return `Status updated for candidate ${s(a.candidate_id)} to '${s(a.status)}'.`;
  }),
  tool("schedule_interview", ["candidate_id", "interviewer_email", "date", "time"], [], false, (env, a) => {
    const id = newId("I-");
    setDefault(env, "interviews", {})[id] = { interview_id: id, candidate_id: a.candidate_id, interviewer_email: a.interviewer_email, date: a.date, time: a.time, status: "scheduled" };
    return `Interview ${id} scheduled for candidate ${s(a.candidate_id)} on ${s(a.date)} at ${s(a.time)}.`;
  }),
  tool("get_interview_schedule", [], ["date"], false, (env, a) => values(got(env, "interviews", {})).filter((i) => a.date === undefined || i?.date === a.date)),
  tool("submit_interview_feedback", ["candidate_id", "feedback", "rating"], [], false, (env, a) => {
    const existing = values(got(env, "interviews", {})).find((i) => i?.candidate_id === a.candidate_id);
    if (existing) {
      existing.feedback = a.feedback;
      existing.rating = a.rating;
    } else {
      const id = newId("I-");
      setDefault(env, "interviews", {})[id] = { interview_id: id, candidate_id: a.candidate_id, feedback: a.feedback, rating: a.rating };
    }
    return `Feedback submitted for candidate ${s(a.candidate_id)}.`;
  }),
  tool("send_offer", ["candidate_id", "position", "salary", "start_date"], [], false, (env, a) => {
    setDefault(env, "sent_actions", []).push({ type: "offer", candidate_id: a.candidate_id, position: a.position, salary: a.salary, start_date: a.start_date });
    return `Offer sent to candidate ${s(a.candidate_id)} for position '${s(a.position)}'.`;
  }),
  tool("send_email", ["recipient", "subject", "body"], [], false, (env, a) => {
    const user = got(env, "current_user", {});
    const msg = { from: Object.hasOwn(user, "email") ? user.email : "system@company.example", to: a.recipient, subject: a.subject, body: a.body, timestamp: "sent" };
    if (Object.hasOwn(env, "inbox")) env.inbox.push(msg);
    else setDefault(env, "messages", []).push(msg);
    return `Email sent to ${s(a.recipient)}.`;
  }),
  tool("get_inbox", [], [], false, (env) => (Object.hasOwn(env, "inbox") ? env.inbox : got(env, "messages", []))),
  tool("get_open_positions", [], [], false, (env) => values(got(env, "open_positions", {}))),
  tool("create_job_posting", ["title", "description", "requirements"], [], false, (env, a) => {
    const id = newId("POS-");
    setDefault(env, "open_positions", {})[id] = { position_id: id, title: a.title, description: a.description, requirements: a.requirements, status: "open" };
    return `Job posting '${s(a.title)}' created with ID ${id}.`;
  }),
];
