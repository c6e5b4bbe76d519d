/** Healthcare domain tools: patients, charts, appointments, referrals, prescriptions, labs. */
import { getMessages, sendMessage } from "./common.ts";
import { appendNote, type Env, field, got, has, lower, must, newId, s, setDefault, type ToolDef, tool, values } from "./tool-kit.ts";

/** The healthcare tools. */
export const HEALTHCARE_TOOLS: ToolDef[] = [
  tool("search_patients", ["query"], [], false, (env: Env, a) => {
    const q = lower(a.query);
    return values(must(env, "patients"))
      .filter((p) => lower(field(p, "name")).includes(q) || values(got(p, "conditions", [])).some((c) => lower(c).includes(q)))
      .map((p) => ({ patient_id: p.patient_id, name: p.name }));
  }),
  tool("get_patient_record", ["patient_id"], [], false, (env, a) => {
    const patients = must(env, "patients");
    return has(patients, a.patient_id) ? patients[a.patient_id] : { error: `Patient ${s(a.patient_id)} not found.` };
  }),
  tool("update_patient_chart", ["patient_id", "notes"], [], false, (env, a) => {
    const patients = must(env, "patients");
    if (!has(patients, a.patient_id)) return `Error: Patient ${s(a.patient_id)} not found.`;
    patients[a.patient_id].chart_notes = appendNote(got(patients[a.patient_id], "chart_notes", ""), a.notes);
    return `Chart updated for patient ${s(a.patient_id)}.`;
  }),
  tool("get_schedule", ["date"], [], false, (env, a) => values(must(env, "appointments")).filter((x) => x?.date === a.date)),
  tool("schedule_appointment", ["patient_id", "date", "time", "reason"], [], false, (env, a) => {
    const appointments = must(env, "appointments");
    const id = newId("A");
    appointments[id] = { appointment_id: id, patient_id: a.patient_id, date: a.date, time: a.time, reason: a.reason, status: "scheduled" };
    return `Appointment ${id} scheduled for patient ${s(a.patient_id)} on ${s(a.date)} at ${s(a.time)}.`;
  }),
  tool("cancel_appointment", ["appointment_id"], [], false, (env, a) => {
    const appointments = must(env, "appointments");
    if (!has(appointments, a.appointment_id)) return `Error: Appointment ${s(a.appointment_id)} not found.`;
    appointments[a.appointment_id].status = "cancelled";
    return `Appointment ${s(a.appointment_id)} has been cancelled.`;
  }),
  tool("send_referral", ["patient_id", "specialist_email", "reason"], [], false, (env, a) => {
    setDefault(env, "sent_actions", []).push({ type: "referral", patient_id: a.patient_id, specialist_email: a.specialist_email, reason: a.reason });
    return `Referral sent for patient ${s(a.patient_id)} to ${s(a.specialist_email)}.`;
  }),
  sendMessage,
  getMessages,
  tool("prescribe_medication", ["patient_id", "medication", "dosage", "instructions"], [], false, (env, a) => {
    const rx = setDefault(env, "prescriptions", {});
    if (!has(rx, a.patient_id)) rx[a.patient_id] = [];
    rx[a.patient_id].push({ medication: a.medication, dosage: a.dosage, instructions: a.instructions });
    return `Prescribed ${s(a.medication)} ${s(a.dosage)} for patient ${s(a.patient_id)}.`;
  }),
  tool("get_prescriptions", ["patient_id"], [], false, (env, a) => {
    const rx = got(env, "prescriptions", {});
    return has(rx, a.patient_id) ? rx[a.patient_id] : [];
  }),
  tool("get_lab_results", ["patient_id"], [], false, (env, a) => {
    const labs = got(env, "lab_results", {});
    return has(labs, a.patient_id) ? labs[a.patient_id] : [];
  }),
];
