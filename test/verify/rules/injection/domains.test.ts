/**
 * Upstream tests/test_<domain>_tools.py (nine files) as one table per domain: reads, filters, writes
 * and not-found answers over a small environment each, plus every tool registered under its name.
 */
import { describe, expect, test } from "bun:test";
import { ECOMMERCE_TOOLS } from "../../../../src/verify/rules/injection/ecommerce.ts";
import { EDUCATION_TOOLS } from "../../../../src/verify/rules/injection/education.ts";
import { HEALTHCARE_TOOLS } from "../../../../src/verify/rules/injection/healthcare.ts";
import { HR_TOOLS } from "../../../../src/verify/rules/injection/hr.ts";
import { INSURANCE_TOOLS } from "../../../../src/verify/rules/injection/insurance.ts";
import { IT_HELPDESK_TOOLS } from "../../../../src/verify/rules/injection/it-helpdesk.ts";
import { LEGAL_TOOLS } from "../../../../src/verify/rules/injection/legal.ts";
import { LOGISTICS_TOOLS } from "../../../../src/verify/rules/injection/logistics.ts";
import { REAL_ESTATE_TOOLS } from "../../../../src/verify/rules/injection/real-estate.ts";
import { INJECTION_TOOLS } from "../../../../src/verify/rules/injection/tools.ts";
import { run } from "./_run.ts";

type Case = [string, string, Record<string, unknown>, (result: any, env: any) => void];

const ENVS: Record<string, () => any> = {
  healthcare: () => ({
    patients: {
      P001: { patient_id: "P001", name: "Maria Garcia", conditions: ["Type 2 Diabetes"], chart_notes: "Initial notes." },
      P002: { patient_id: "P002", name: "James Wilson", conditions: ["Hypertension"] },
    },
    appointments: { A001: { appointment_id: "A001", patient_id: "P001", date: "2024-01-15", status: "scheduled" }, A002: { appointment_id: "A002", patient_id: "P002", date: "2024-01-16", status: "scheduled" } },
    messages: [{ from: "nurse@clinic.example", to: "doctor@clinic.example", subject: "Lab results for P001", body: "Please review." }],
    prescriptions: { P001: [{ medication: "Metformin", dosage: "500mg", instructions: "Twice daily" }] },
    lab_results: { P001: [{ test: "HbA1c", result: "7.8%" }] },
    current_user: { email: "drsmith@clinic.example" },
  }),
  hr: () => ({
    candidates: {
      "C-001": { candidate_id: "C-001", name: "Jordan Lee", resume: "Python, SQL", status: "applied", position_applied: "Data Analyst" },
      "C-002": { candidate_id: "C-002", name: "Sam Park", resume: "Kubernetes, Go", status: "screening" },
    },
    interviews: { "I-001": { interview_id: "I-001", candidate_id: "C-001", date: "2024-02-01" } },
    messages: [{ subject: "Hi" }],
    open_positions: { "POS-1": { position_id: "POS-1", title: "Data Analyst" } },
    current_user: { email: "hr@company.example" },
  }),
  ecommerce: () => ({
    orders: { "O-1001": { order_id: "O-1001", customer_id: "CUST-100", status: "processing", total_amount: 99.99 }, "O-1002": { order_id: "O-1002", customer_id: "CUST-200", status: "delivered" } },
    products: { "P-2001": { product_id: "P-2001", name: "Wireless Mouse", description: "Ergonomic", category: "Electronics", stock_quantity: 5 }, "P-2002": { product_id: "P-2002", name: "Desk", description: "Oak", category: "Furniture" } },
    refunds: { "R-4001": { refund_id: "R-4001", status: "pending", amount: 10 } },
    support_tickets: { "T-3001": { ticket_id: "T-3001", subject: "Defective item", status: "open", priority: "low" } },
  }),
  education: () => ({
    courses: { CS101: { course_id: "CS101", title: "Intro to Programming", department: "Computer Science" } },
    financial_aid: { "FA-3001": { aid_id: "FA-3001", student_id: "S-1001", amount: 5000, status: "pending" } },
    grades: { "G-1": { grade_id: "G-1", student_id: "S-1001", assignment_name: "Midterm" } },
    students: { "S-1001": { student_id: "S-1001", first_name: "Alice", last_name: "Chen", major: "Computer Science", email: "alice@uni.edu" } },
  }),
  insurance: () => ({
    adjuster_notes: { "AN-3001": { note_id: "AN-3001", claim_id: "CL-2001" } },
    claims: { "CL-2001": { claim_id: "CL-2001", claim_number: "CN-555", description: "Collision." } },
    messages: [{ subject: "Claim update", related_claim_id: "CL-2001" }],
    policies: { "POL-1001": { policy_id: "POL-1001", policyholder_name: "Jane Doe" } },
  }),
  it_helpdesk: () => ({
    assets: { "AST-2001": { asset_id: "AST-2001", tag: "LPT-0042", type: "Laptop", status: "assigned", location: "Building A" } },
    knowledge_base_articles: { "KB-3001": { article_id: "KB-3001", title: "How to reset passwords", content: "Steps", category: "Accounts" } },
    incidents: { "INC-1001": { ticket_id: "INC-1001", title: "Laptop not booting", description: "Black screen", status: "Open", priority: "High" } },
  }),
  legal: () => ({
    billing_records: { "BL-4001": { billing_id: "BL-4001", case_id: "CF-1001", date: "2024-03-01", billable: true } },
    case_files: { "CF-1001": { case_id: "CF-1001", client_name: "John Smith", case_type: "Civil", status: "open" } },
    court_schedules: { "CS-2001": { schedule_id: "CS-2001", case_id: "CF-1001", judge: "Hon. Williams", scheduled_date: "2024-04-10", hearing_type: "Motion" } },
    document_filings: { "DF-1": { filing_id: "DF-1", title: "Motion to Dismiss" } },
  }),
  logistics: () => ({
    carrier_messages: { "CM-4001": { message_id: "CM-4001", shipment_id: "SH-1001" } },
    customs_declarations: { "CD-1": { declaration_id: "CD-1", shipment_id: "SH-1001", hs_code: "8471.30" } },
    delivery_schedules: { "DS-1": { shipment_id: "SH-1001", window: "AM" } },
    shipments: { "SH-1001": { shipment_id: "SH-1001", status: "In Transit" } },
    warehouse_inventories: { "INV-1": { inventory_id: "INV-1", sku: "SKU-1", quantity: 3 }, "INV-2": { inventory_id: "INV-2", sku: "SKU-2", quantity: 50 } },
    current_user: { name: "Dispatcher" },
  }),
  real_estate: () => ({
    clients: { "CL-1": { client_id: "CL-1", name: "Pat" } },
    inspection_reports: { "IR-1": { report_id: "IR-1", property_id: "PR-1", findings: "" } },
    property_listings: { "PR-1": { property_id: "PR-1", address: "12 Oak St, Springfield", price: 300000, description: "Cozy" }, "PR-2": { property_id: "PR-2", address: "9 Elm Ave, Shelbyville", price: 650000, description: "Pool" } },
  }),
};

const ids = (k: string) => (r: any[]) => r.map((x) => x[k]);
const CASES: Record<string, Case[]> = {
  healthcare: [
    ["search by name", "search_patients", { query: "maria" }, (r) => expect(r).toEqual([{ patient_id: "P001", name: "Maria Garcia" }])],
    ["search by condition", "search_patients", { query: "HYPERTENSION" }, (r) => expect(ids("patient_id")(r)).toEqual(["P002"])],
    ["search no match", "search_patients", { query: "zzz" }, (r) => expect(r).toEqual([])],
    ["record", "get_patient_record", { patient_id: "P001" }, (r) => expect(r.name).toBe("Maria Garcia")],
    ["record missing", "get_patient_record", { patient_id: "P9" }, (r) => expect(r).toEqual({ error: "Patient P9 not found." })],
    ["chart appends", "update_patient_chart", { patient_id: "P001", notes: "New lab results reviewed." }, (r, e) => expect([r, e.patients.P001.chart_notes]).toEqual(["Chart updated for patient P001.", "Initial notes.\nNew lab results reviewed."])],
    ["chart missing", "update_patient_chart", { patient_id: "P9", notes: "x" }, (r) => expect(r).toBe("Error: Patient P9 not found.")],
    ["schedule by date", "get_schedule", { date: "2024-01-15" }, (r) => expect(ids("patient_id")(r)).toEqual(["P001"])],
    ["no appointments", "get_schedule", { date: "2030-01-01" }, (r) => expect(r).toEqual([])],
    ["schedule appointment", "schedule_appointment", { patient_id: "P001", date: "2024-02-01", time: "10:00", reason: "Check" }, (r, e) => {
      expect(r).toMatch(/^Appointment A[0-9A-F]{6} scheduled for patient P001 on 2024-02-01 at 10:00\.$/);
      expect(Object.keys(e.appointments)).toHaveLength(3);
    }],
    ["cancel", "cancel_appointment", { appointment_id: "A001" }, (r, e) => expect([r, e.appointments.A001.status]).toEqual(["Appointment A001 has been cancelled.", "cancelled"])],
    ["cancel missing", "cancel_appointment", { appointment_id: "A9" }, (r) => expect(r).toBe("Error: Appointment A9 not found.")],
    ["referral", "send_referral", { patient_id: "P001", specialist_email: "cardio@hospital.com", reason: "ECG" }, (r, e) => expect([r, e.sent_actions]).toEqual(["Referral sent for patient P001 to cardio@hospital.com.", [{ type: "referral", patient_id: "P001", specialist_email: "cardio@hospital.com", reason: "ECG" }]])],
    ["messages", "get_messages", {}, (r) => expect(r[0].subject).toBe("Lab results for P001")],
    ["prescribe", "prescribe_medication", { patient_id: "P001", medication: "Lisinopril", dosage: "10mg", instructions: "Daily" }, (r, e) => expect([r, e.prescriptions.P001.length]).toEqual(["Prescribed Lisinopril 10mg for patient P001.", 2])],
    ["prescribe new patient", "prescribe_medication", { patient_id: "P002", medication: "X", dosage: "1mg", instructions: "y" }, (_r, e) => expect(e.prescriptions.P002).toHaveLength(1)],
    ["prescriptions", "get_prescriptions", { patient_id: "P001" }, (r) => expect(r).toHaveLength(1)],
    ["no prescriptions", "get_prescriptions", { patient_id: "P002" }, (r) => expect(r).toEqual([])],
    ["labs", "get_lab_results", { patient_id: "P001" }, (r) => expect(r[0].test).toBe("HbA1c")],
    ["no labs", "get_lab_results", { patient_id: "P002" }, (r) => expect(r).toEqual([])],
  ],
  hr: [
    ["search by name", "search_candidates", { query: "jordan" }, (r) => expect(r).toEqual([{ candidate_id: "C-001", name: "Jordan Lee" }])],
    ["search by skill", "search_candidates", { query: "kubernetes" }, (r) => expect(ids("candidate_id")(r)).toEqual(["C-002"])],
    ["status filter hit", "search_candidates", { query: "a", status: "APPLIED" }, (r) => expect(ids("candidate_id")(r)).toEqual(["C-001"])],
    ["status filter miss", "search_candidates", { query: "jordan", status: "hired" }, (r) => expect(r).toEqual([])],
    ["profile", "get_candidate_profile", { candidate_id: "C-001" }, (r) => expect(r.name).toBe("Jordan Lee")],
    ["profile missing", "get_candidate_profile", { candidate_id: "C-9" }, (r) => expect(r).toEqual({ error: "Candidate C-9 not found." })],
    ["status update", "update_candidate_status", { candidate_id: "C-001", status: "interviewing" }, (r, e) => expect([r, e.candidates["C-001"].status]).toEqual(["Status updated for candidate C-001 to 'interviewing'.", "interviewing"])],
    ["status missing", "update_candidate_status", { candidate_id: "C-9", status: "x" }, (r) => expect(r).toBe("Error: Candidate C-9 not found.")],
    ["schedule interview", "schedule_interview", { candidate_id: "C-002", interviewer_email: "a@b", date: "2024-02-02", time: "09:00" }, (_r, e) => expect(Object.keys(e.interviews)).toHaveLength(2)],
    ["interviews all", "get_interview_schedule", {}, (r) => expect(r).toHaveLength(1)],
    ["interviews by date miss", "get_interview_schedule", { date: "2030-01-01" }, (r) => expect(r).toEqual([])],
    ["feedback on an interview", "submit_interview_feedback", { candidate_id: "C-001", feedback: "Strong technical skills.", rating: 4 }, (r, e) => expect([r, e.interviews["I-001"].feedback, e.interviews["I-001"].rating]).toEqual(["Feedback submitted for candidate C-001.", "Strong technical skills.", 4])],
    ["feedback without an interview", "submit_interview_feedback", { candidate_id: "C-002", feedback: "ok", rating: 3 }, (_r, e) => expect(Object.keys(e.interviews)).toHaveLength(2)],
    ["offer", "send_offer", { candidate_id: "C-001", position: "Analyst", salary: "100k", start_date: "2024-05-01" }, (r, e) => expect([r, e.sent_actions[0].candidate_id]).toEqual(["Offer sent to candidate C-001 for position 'Analyst'.", "C-001"])],
    ["email to messages", "send_email", { recipient: "x@y", subject: "s", body: "b" }, (r, e) => expect([r, e.messages.length, e.messages[1].from]).toEqual(["Email sent to x@y.", 2, "hr@company.example"])],
    ["inbox", "get_inbox", {}, (r) => expect(r).toHaveLength(1)],
    ["positions", "get_open_positions", {}, (r) => expect(r[0].title).toBe("Data Analyst")],
    ["posting", "create_job_posting", { title: "SRE", description: "d", requirements: "r" }, (r, e) => {
      expect(r).toMatch(/^Job posting 'SRE' created with ID POS-[0-9A-F]{6}\.$/);
      expect(Object.keys(e.open_positions)).toHaveLength(2);
    }],
  ],
  ecommerce: [
    ["orders by customer", "search_orders", { customer_id: "CUST-100" }, (r) => expect(ids("order_id")(r)).toEqual(["O-1001"])],
    ["orders by status", "search_orders", { status: "PROCESSING" }, (r) => expect(ids("order_id")(r)).toEqual(["O-1001"])],
    ["orders no match", "search_orders", { customer_id: "CUST-9" }, (r) => expect(r).toEqual([])],
    ["order", "get_order_details", { order_id: "O-1001" }, (r) => expect([r.customer_id, r.total_amount]).toEqual(["CUST-100", 99.99])],
    ["order missing", "get_order_details", { order_id: "O-9" }, (r) => expect(r).toEqual({ error: "Order O-9 not found." })],
    ["order status", "update_order_status", { order_id: "O-1001", status: "shipped" }, (r, e) => expect([r, e.orders["O-1001"].status]).toEqual(["Order O-1001 status updated to 'shipped'.", "shipped"])],
    ["order note", "add_order_note", { order_id: "O-1001", note: "Customer called about delivery." }, (r, e) => expect([r, e.orders["O-1001"].notes]).toEqual(["Note added to order O-1001.", "Customer called about delivery."])],
    ["products by query", "search_products", { query: "mouse" }, (r) => expect(ids("product_id")(r)).toEqual(["P-2001"])],
    ["products by category", "search_products", { category: "electronics" }, (r) => expect(ids("product_id")(r)).toEqual(["P-2001"])],
    ["product", "get_product_details", { product_id: "P-2001" }, (r) => expect(r.name).toBe("Wireless Mouse")],
    ["product missing", "get_product_details", { product_id: "P-9" }, (r) => expect(r).toEqual({ error: "Product P-9 not found." })],
    ["stock", "update_product_stock", { product_id: "P-2001", stock_quantity: 100 }, (r, e) => expect([r, e.products["P-2001"].stock_quantity]).toEqual(["Stock updated for product P-2001 to 100.", 100])],
    ["refund existing", "process_refund", { refund_id: "R-4001", amount: 49.99 }, (r, e) => expect([r, e.refunds["R-4001"]]).toEqual(["Refund R-4001 processed for $49.99.", { refund_id: "R-4001", status: "processed", amount: 49.99 }])],
    ["refund new", "process_refund", { refund_id: "R-NEW", amount: 25.5, reason: "late" }, (_r, e) => expect(e.refunds["R-NEW"]).toEqual({ refund_id: "R-NEW", amount: 25.5, status: "processed", reason: "late" })],
    ["ticket create", "create_support_ticket", { customer_id: "CUST-100", subject: "s", description: "d" }, (_r, e) => {
      const t = Object.values(e.support_tickets).at(-1) as any;
      expect([Object.keys(e.support_tickets).length, t.priority, t.status, "order_id" in t]).toEqual([2, "medium", "open", false]);
    }],
    ["ticket", "get_ticket_details", { ticket_id: "T-3001" }, (r) => expect(r.subject).toBe("Defective item")],
    ["ticket missing", "get_ticket_details", { ticket_id: "T-9" }, (r) => expect(r).toEqual({ error: "Ticket T-9 not found." })],
    ["ticket status", "update_ticket_status", { ticket_id: "T-3001", status: "resolved", priority: "high" }, (r, e) => expect([r, e.support_tickets["T-3001"].status, e.support_tickets["T-3001"].priority]).toEqual(["Ticket T-3001 updated to status 'resolved'.", "resolved", "high"])],
  ],
  education: [
    ["courses all", "list_courses", {}, (r) => expect(ids("course_id")(r)).toEqual(["CS101"])],
    ["courses by department", "list_courses", { department: "computer science" }, (r) => expect(ids("course_id")(r)).toEqual(["CS101"])],
    ["courses no match", "list_courses", { department: "Art" }, (r) => expect(r).toEqual([])],
    ["course", "get_course_detail", { course_id: "CS101" }, (r) => expect(r.title).toBe("Intro to Programming")],
    ["course missing", "get_course_detail", { course_id: "X" }, (r) => expect(r).toEqual({ error: "Course X not found." })],
    ["create course", "create_course", { course_code: "CS201", title: "DS", description: "d", credits: 3, department: "CS", instructor_id: "I1", schedule: "MWF" }, (r, e) => {
      expect(r).toMatch(/^Course 'DS' \(CS201\) created with ID C-[0-9A-F]{6}\.$/);
      expect(Object.keys(e.courses)).toHaveLength(2);
    }],
    ["aid", "get_financial_aid", { student_id: "S-1001" }, (r) => expect(ids("aid_id")(r)).toEqual(["FA-3001"])],
    ["aid no match", "get_financial_aid", { student_id: "S-9" }, (r) => expect(r).toEqual([])],
    ["adjust aid", "adjust_financial_aid", { aid_id: "FA-3001", amount: 6000, status: "approved", reviewer_notes: "ok" }, (r) => expect([r.amount, r.status, r.reviewer_notes]).toEqual([6000, "approved", "ok"])],
    ["adjust aid missing", "adjust_financial_aid", { aid_id: "FA-9" }, (r) => expect(r).toEqual({ error: "Financial aid record FA-9 not found." })],
    ["grades", "get_grades_for_student", { student_id: "S-1001" }, (r) => expect(r[0].assignment_name).toBe("Midterm")],
    ["submit grade", "submit_grade", { student_id: "S-1001", course_id: "CS101", assignment_name: "Final", score: 90, max_score: 100 }, (r, e) => {
      expect(r).toBe("Grade submitted for student S-1001 in course CS101.");
      expect((Object.values(e.grades).at(-1) as any).grader_comments).toBe("");
    }],
    ["students by name", "search_students", { name: "alice chen" }, (r) => expect(ids("student_id")(r)).toEqual(["S-1001"])],
    ["students by major", "search_students", { major: "computer" }, (r) => expect(ids("student_id")(r)).toEqual(["S-1001"])],
    ["students no match", "search_students", { email: "x@y" }, (r) => expect(r).toEqual([])],
    ["student", "get_student_record", { student_id: "S-1001" }, (r) => expect(r.first_name).toBe("Alice")],
    ["student missing", "get_student_record", { student_id: "S-9" }, (r) => expect(r).toEqual({ error: "Student S-9 not found." })],
    ["advisor notes", "update_student_advisor_notes", { student_id: "S-1001", notes: "Recommended for TA position." }, (r, e) => expect([r, e.students["S-1001"].advisor_notes]).toEqual(["Advisor notes updated for student S-1001.", "Recommended for TA position."])],
    ["advisor notes missing", "update_student_advisor_notes", { student_id: "S-9", notes: "x" }, (r) => expect(r).toBe("Error: Student S-9 not found.")],
  ],
  insurance: [
    ["adjuster note", "add_adjuster_note", { claim_id: "CL-2001", adjuster_id: "ADJ-100", note_text: "Damage confirmed." }, (r, e) => expect([r.claim_id, r.adjuster_id, r.note_text, r.timestamp, Object.keys(e.adjuster_notes).length]).toEqual(["CL-2001", "ADJ-100", "Damage confirmed.", "created", 2])],
    ["notes for claim", "get_adjuster_notes_for_claim", { claim_id: "CL-2001" }, (r) => expect(ids("note_id")(r)).toEqual(["AN-3001"])],
    ["no notes", "get_adjuster_notes_for_claim", { claim_id: "CL-9" }, (r) => expect(r).toEqual([])],
    ["create claim", "create_claim", { policy_id: "POL-1001", claim_number: "CN-1", date_of_loss: "2024-01-01", description: "d", claim_type: "auto", amount_requested: 1000, adjuster_id: "ADJ-1" }, (r, e) => expect([r.status, r.claim_id in e.claims]).toEqual(["open", true])],
    ["claim", "get_claim_by_id", { claim_id: "CL-2001" }, (r) => expect(r.claim_number).toBe("CN-555")],
    ["claim missing", "get_claim_by_id", { claim_id: "CL-9" }, (r) => expect(r).toEqual({ error: "Claim CL-9 not found." })],
    ["claim description", "update_claim_description", { claim_id: "CL-2001", description: "Rear-end collision." }, (r, e) => expect([r, e.claims["CL-2001"].description]).toEqual(["Claim CL-2001 description updated.", "Rear-end collision."])],
    ["claim description missing", "update_claim_description", { claim_id: "CL-9", description: "x" }, (r) => expect(r).toBe("Error: Claim CL-9 not found.")],
    ["messages for claim", "get_messages_for_claim", { claim_id: "CL-2001" }, (r) => expect(r[0].subject).toBe("Claim update")],
    ["no messages for claim", "get_messages_for_claim", { claim_id: "CL-9" }, (r) => expect(r).toEqual([])],
    ["fraud flag", "flag_fraud_investigation", { claim_id: "CL-2001", investigator_id: "INV-1", flag_reason: "r", severity: "high" }, (r) => expect([r.claim_id, r.severity, r.status]).toEqual(["CL-2001", "high", "open"])],
    ["payout", "process_payout", { claim_id: "CL-2001", amount: 4500.5, date: "2024-01-02", method: "ACH", notes: "n" }, (r) => expect([r.claim_id, r.amount, r.status]).toEqual(["CL-2001", 4500.5, "processed"])],
    ["policy", "get_policy_by_id", { policy_id: "POL-1001" }, (r) => expect(r.policyholder_name).toBe("Jane Doe")],
    ["policy missing", "get_policy_by_id", { policy_id: "POL-9" }, (r) => expect(r).toEqual({ error: "Policy POL-9 not found." })],
    ["policies by holder", "search_policies_by_holder", { policyholder_name: "jane" }, (r) => expect(ids("policy_id")(r)).toEqual(["POL-1001"])],
    ["policies no match", "search_policies_by_holder", { policyholder_name: "zed" }, (r) => expect(r).toEqual([])],
    ["policy notes", "update_policy_notes", { policy_id: "POL-1001", notes: "VIP customer." }, (r, e) => expect([r, e.policies["POL-1001"].notes]).toEqual(["Policy POL-1001 notes updated.", "VIP customer."])],
    ["policy notes missing", "update_policy_notes", { policy_id: "POL-9", notes: "x" }, (r) => expect(r).toBe("Error: Policy POL-9 not found.")],
    ["send", "send_message", { to: "a@b", subject: "s", body: "b" }, (r, e) => expect([r, e.messages.length]).toEqual(["Message sent to a@b.", 2])],
  ],
  it_helpdesk: [
    ["assets by tag", "search_assets", { tag: "lpt" }, (r) => expect(ids("asset_id")(r)).toEqual(["AST-2001"])],
    ["assets by type", "search_assets", { type: "LAPTOP" }, (r) => expect(r).toHaveLength(1)],
    ["assets by status miss", "search_assets", { status: "retired" }, (r) => expect(r).toEqual([])],
    ["assets by location", "search_assets", { location: "building" }, (r) => expect(r).toHaveLength(1)],
    ["asset", "get_asset", { asset_id: "AST-2001" }, (r) => expect(r.tag).toBe("LPT-0042")],
    ["asset missing", "get_asset", { asset_id: "X" }, (r) => expect(r).toEqual({ error: "Asset X not found." })],
    ["asset notes", "update_asset_notes", { asset_id: "AST-2001", notes: "Returned to IT." }, (r, e) => expect([r, e.assets["AST-2001"].notes]).toEqual(["Asset AST-2001 notes updated.", "Returned to IT."])],
    ["kb by keyword", "search_kb_articles", { keyword: "PASSWORD" }, (r) => expect(ids("article_id")(r)).toEqual(["KB-3001"])],
    ["kb by category", "search_kb_articles", { category: "accounts" }, (r) => expect(r).toHaveLength(1)],
    ["kb no match", "search_kb_articles", { keyword: "printer" }, (r) => expect(r).toEqual([])],
    ["kb article", "get_kb_article", { article_id: "KB-3001" }, (r) => expect(r.title).toBe("How to reset passwords")],
    ["kb update", "update_kb_article_content", { article_id: "KB-3001", content: "Updated instructions." }, (r, e) => expect([r, e.knowledge_base_articles["KB-3001"].content]).toEqual(["Article KB-3001 content updated.", "Updated instructions."])],
    ["kb update missing", "update_kb_article_content", { article_id: "KB-9", content: "x" }, (r) => expect(r).toBe("Error: Article KB-9 not found.")],
    ["incidents by keyword", "search_incidents", { keyword: "booting" }, (r) => expect(ids("ticket_id")(r)).toEqual(["INC-1001"])],
    ["incidents by status miss", "search_incidents", { status: "closed" }, (r) => expect(r).toEqual([])],
    ["incidents by priority", "search_incidents", { priority: "high" }, (r) => expect(r).toHaveLength(1)],
    ["incident", "get_incident", { ticket_id: "INC-1001" }, (r) => expect(r.title).toBe("Laptop not booting")],
    ["incident missing", "get_incident", { ticket_id: "INC-9" }, (r) => expect(r).toEqual({ error: "Incident INC-9 not found." })],
    ["incident description", "update_incident_description", { ticket_id: "INC-1001", description: "Hardware failure confirmed." }, (r, e) => expect([r, e.incidents["INC-1001"].description]).toEqual(["Incident INC-1001 description updated.", "Hardware failure confirmed."])],
    ["incident create", "create_incident", { title: "t", description: "d", priority: "Low", assigned_to: "me" }, (r, e) => {
      expect(r).toMatch(/^Incident INC-[0-9A-F]{6} created\.$/);
      expect((Object.values(e.incidents).at(-1) as any).status).toBe("Open");
    }],
    ["send then get", "send_message", { to: "a@b", subject: "s", body: "b" }, (_r, e) => expect(run(e, "get_messages")).toHaveLength(1)],
    ["get empty", "get_messages", {}, (r) => expect(r).toEqual([])],
  ],
  legal: [
    ["billing add with amount", "add_billing_entry", { case_id: "CF-1001", date: "2024-03-02", description: "d", hours: 2, rate: 300, attorney: "AT" }, (r, e) => {
      expect(r).toMatch(/^Billing entry BL-[0-9A-F]{6} added for case CF-1001\.$/);
      expect(Object.values(e.billing_records).at(-1)).toMatchObject({ amount: 600, billable: true, attorney: "AT" });
    }],
    ["billing by case", "get_billing_report", { case_id: "CF-1001" }, (r) => expect(ids("billing_id")(r)).toEqual(["BL-4001"])],
    ["billing no match", "get_billing_report", { case_id: "CF-9" }, (r) => expect(r).toEqual([])],
    ["billing by billable", "get_billing_report", { billable: false }, (r) => expect(r).toEqual([])],
    ["billing by dates", "get_billing_report", { start_date: "2024-02-01", end_date: "2024-03-01" }, (r) => expect(r).toHaveLength(1)],
    ["billing after end", "get_billing_report", { end_date: "2024-02-28" }, (r) => expect(r).toEqual([])],
    ["cases by client", "search_cases", { client_name: "smith" }, (r) => expect(ids("case_id")(r)).toEqual(["CF-1001"])],
    ["cases by type", "search_cases", { case_type: "civil" }, (r) => expect(r).toHaveLength(1)],
    ["cases by status miss", "search_cases", { status: "closed" }, (r) => expect(r).toEqual([])],
    ["case", "get_case_file", { case_id: "CF-1001" }, (r) => expect(r.client_name).toBe("John Smith")],
    ["case missing", "get_case_file", { case_id: "CF-9" }, (r) => expect(r).toEqual({ error: "Case CF-9 not found." })],
    ["case notes", "update_case_notes", { case_id: "CF-1001", notes: "Discovery phase started." }, (r, e) => expect([r, e.case_files["CF-1001"].notes]).toEqual(["Case CF-1001 notes updated.", "Discovery phase started."])],
    ["case notes missing", "update_case_notes", { case_id: "CF-9", notes: "x" }, (r) => expect(r).toBe("Error: Case CF-9 not found.")],
    ["court schedule", "get_court_schedule", { schedule_id: "CS-2001" }, (r) => expect(r.judge).toBe("Hon. Williams")],
    ["court schedule missing", "get_court_schedule", { schedule_id: "CS-9" }, (r) => expect(r).toEqual({ error: "Schedule CS-9 not found." })],
    ["schedules by case", "search_schedules", { case_id: "CF-1001" }, (r) => expect(r).toHaveLength(1)],
    ["schedules by hearing type miss", "search_schedules", { hearing_type: "trial" }, (r) => expect(r).toEqual([])],
    ["location", "update_schedule_location", { schedule_id: "CS-2001", location: "Courtroom 5B" }, (r, e) => expect([r, e.court_schedules["CS-2001"].location, "notes" in e.court_schedules["CS-2001"]]).toEqual(["Schedule CS-2001 updated.", "Courtroom 5B", false])],
    ["schedule notes", "update_schedule_location", { schedule_id: "CS-2001", notes: "Rescheduled by judge." }, (_r, e) => expect(e.court_schedules["CS-2001"].notes).toBe("Rescheduled by judge.")],
    ["schedule missing", "update_schedule_location", { schedule_id: "CS-9" }, (r) => expect(r).toBe("Error: Schedule CS-9 not found.")],
    ["filing create", "create_document_filing", { case_id: "CF-1001", document_type: "motion", title: "T", filing_date: "2024-01-01", court_name: "C", file_path: "/f" }, (_r, e) => expect(Object.values(e.document_filings).at(-1)).toMatchObject({ served_parties: [], title: "T" })],
    ["filing", "get_document_filing", { filing_id: "DF-1" }, (r) => expect(r.title).toBe("Motion to Dismiss")],
    ["filing missing", "get_document_filing", { filing_id: "DF-9" }, (r) => expect(r).toEqual({ error: "Filing DF-9 not found." })],
  ],
  logistics: [
    ["carrier messages", "get_carrier_messages", {}, (r) => expect(ids("message_id")(r)).toEqual(["CM-4001"])],
    ["carrier messages by shipment miss", "get_carrier_messages", { shipment_id: "SH-9" }, (r) => expect(r).toEqual([])],
    ["carrier send", "send_carrier_message", { to: "c@x", subject: "s", body: "b" }, (r, e) => {
      expect([r, Object.keys(e.carrier_messages).length]).toEqual(["Carrier message sent to c@x.", 2]);
      expect((Object.values(e.carrier_messages).at(-1) as any).from).toBe("Dispatcher");
    }],
    ["customs", "get_customs_declaration_by_shipment", { shipment_id: "SH-1001" }, (r) => expect(r.hs_code).toBe("8471.30")],
    ["customs missing", "get_customs_declaration_by_shipment", { shipment_id: "SH-9" }, (r) => expect(r).toEqual({ error: "No customs declaration found for shipment SH-9." })],
    ["customs resubmit", "submit_customs_declaration", { shipment_id: "SH-1001", hs_code: "9999", declared_value: 10 }, (r, e) => expect([r.declaration_id, r.status, Object.keys(e.customs_declarations).length]).toEqual(["CD-1", "submitted", 1])],
    ["customs new", "submit_customs_declaration", { shipment_id: "SH-2", hs_code: "1", declared_value: 5, additional_info: "i" }, (r, e) => expect([r.status, r.additional_info, Object.keys(e.customs_declarations).length]).toEqual(["submitted", "i", 2])],
    ["delivery", "get_delivery_schedule", { shipment_id: "SH-1001" }, (r) => expect(r.window).toBe("AM")],
    ["delivery missing", "get_delivery_schedule", { shipment_id: "SH-9" }, (r) => expect(r).toEqual({ error: "No delivery schedule found for shipment SH-9." })],
    ["shipment", "get_shipment_by_id", { shipment_id: "SH-1001" }, (r) => expect(r.status).toBe("In Transit")],
    ["shipments by status", "search_shipments_by_status", { status: "in transit" }, (r) => expect(r).toHaveLength(1)],
    ["shipment status", "update_shipment_status", { shipment_id: "SH-1001", status: "Delivered", eta: "now" }, (r, e) => expect([r, e.shipments["SH-1001"].eta]).toEqual(["Shipment SH-1001 updated to status 'Delivered'.", "now"])],
    ["shipment missing", "update_shipment_status", { shipment_id: "SH-9", status: "x" }, (r) => expect(r).toBe("Error: Shipment SH-9 not found.")],
    ["inventory item", "get_warehouse_inventory_item", { inventory_id: "INV-1" }, (r) => expect(r.sku).toBe("SKU-1")],
    ["low stock", "list_low_stock_items", { threshold: 10 }, (r) => expect(ids("inventory_id")(r)).toEqual(["INV-1"])],
    ["add inventory", "add_warehouse_inventory", { sku: "SKU-3", description: "d", quantity: 1, warehouse_location: "W1" }, (r) => expect(r).toMatch(/^Inventory item INV-[0-9A-F]{6} added \(SKU: SKU-3\)\.$/)],
    ["adjust", "adjust_warehouse_quantity", { inventory_id: "INV-1", adjustment: -2 }, (r, e) => expect([r, e.warehouse_inventories["INV-1"].quantity]).toEqual(["Inventory INV-1 quantity adjusted by -2.", 1])],
    ["adjust missing", "adjust_warehouse_quantity", { inventory_id: "INV-9", adjustment: 1 }, (r) => expect(r).toBe("Error: Inventory item INV-9 not found.")],
  ],
  real_estate: [
    ["clients", "list_clients", {}, (r) => expect(ids("client_id")(r)).toEqual(["CL-1"])],
    ["client", "get_client_details", { client_id: "CL-1" }, (r) => expect(r.name).toBe("Pat")],
    ["client missing", "get_client_details", { client_id: "CL-9" }, (r) => expect(r).toEqual({ error: "Client CL-9 not found." })],
    ["client note", "add_client_note", { client_id: "CL-1", notes: "n" }, (r, e) => expect([r, e.clients["CL-1"].notes]).toEqual(["Notes updated for client CL-1.", "n"])],
    ["inspection", "schedule_inspection", { property_id: "PR-1", inspector_name: "I", inspection_date: "2024-01-01" }, (r, e) => {
      expect(r).toMatch(/^Inspection IR-[0-9A-F]{6} scheduled for property PR-1\.$/);
      expect(Object.values(e.inspection_reports).at(-1)).toMatchObject({ findings: "", recommendations: "", overall_condition: "" });
    }],
    ["report", "get_inspection_report", { report_id: "IR-1" }, (r) => expect(r.property_id).toBe("PR-1")],
    ["findings", "submit_inspection_findings", { report_id: "IR-1", findings: "f", recommendations: "r" }, (r, e) => expect([r, e.inspection_reports["IR-1"].findings]).toEqual(["Findings submitted for inspection report IR-1.", "f"])],
    ["findings missing", "submit_inspection_findings", { report_id: "IR-9", findings: "f", recommendations: "r" }, (r) => expect(r).toBe("Error: Inspection report IR-9 not found.")],
    ["properties by price", "search_properties", { min_price: 100000, max_price: 400000 }, (r) => expect(ids("property_id")(r)).toEqual(["PR-1"])],
    ["properties by location", "search_properties", { location: "shelbyville" }, (r) => expect(ids("property_id")(r)).toEqual(["PR-2"])],
    ["properties by keywords", "search_properties", { keywords: "POOL" }, (r) => expect(ids("property_id")(r)).toEqual(["PR-2"])],
    ["property", "get_property_details", { property_id: "PR-1" }, (r) => expect(r.address).toBe("12 Oak St, Springfield")],
    ["create property", "create_property", { address: "1 New Rd", price: 1, bedrooms: 2, bathrooms: 1 }, (r, e) => {
      expect(r).toMatch(/^Property PROP-[0-9A-F]{6} created at 1 New Rd\.$/);
      expect(Object.values(e.property_listings).at(-1)).toMatchObject({ status: "active" });
    }],
    ["property description", "update_property_description", { property_id: "PR-1", description: "New" }, (r, e) => expect([r, e.property_listings["PR-1"].description]).toEqual(["Property PR-1 description updated.", "New"])],
    ["recipients list", "send_message", { recipients: ["a@x", "b@x"], subject: "s", body: "b" }, (r) => expect(r).toBe("Message sent to a@x, b@x.")],
  ],
};

const REGISTERED: Record<string, string[]> = {
  healthcare: HEALTHCARE_TOOLS.map((t) => t.name),
  hr: HR_TOOLS.map((t) => t.name),
  ecommerce: ECOMMERCE_TOOLS.map((t) => t.name),
  education: EDUCATION_TOOLS.map((t) => t.name),
  insurance: INSURANCE_TOOLS.map((t) => t.name),
  it_helpdesk: IT_HELPDESK_TOOLS.map((t) => t.name),
  legal: LEGAL_TOOLS.map((t) => t.name),
  logistics: LOGISTICS_TOOLS.map((t) => t.name),
  real_estate: REAL_ESTATE_TOOLS.map((t) => t.name),
};
// upstream's test_all_tools_registered counts per domain.
const COUNTS: Record<string, number> = { healthcare: 12, hr: 11, ecommerce: 11, education: 12, insurance: 12, it_helpdesk: 12, legal: 12, logistics: 12, real_estate: 12 };

for (const [domain, cases] of Object.entries(CASES)) {
  describe(domain, () => {
    test.each(cases)("%s", (_n, tool, args, check) => {
      const env = ENVS[domain]!();
      check(run(env, tool, args), env);
    });
    test("every tool registered", () => {
      expect(REGISTERED[domain]!.length).toBe(COUNTS[domain]!);
      for (const name of REGISTERED[domain]!) expect(INJECTION_TOOLS.has(name)).toBe(true);
    });
  });
}
