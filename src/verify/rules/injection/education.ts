/** Education domain tools: courses, financial aid, grades, student records, messages. */
import { getMessages, sendMessage } from "./common.ts";
import { appendNote, type Env, field, got, has, lower, newId, s, setDefault, type ToolDef, tool, truthy, values } from "./tool-kit.ts";

/** The education tools. */
export const EDUCATION_TOOLS: ToolDef[] = [
  getMessages,
  sendMessage,
  tool("list_courses", [], ["department"], true, (env: Env, a) => values(got(env, "courses", {})).filter((c) => !truthy(a.department) || lower(field(c, "department")) === lower(a.department))),
  tool("get_course_detail", ["course_id"], [], false, (env, a) => {
    const c = got(env, "courses", {});
    return has(c, a.course_id) ? c[a.course_id] : { error: `Course ${s(a.course_id)} not found.` };
  }),
  tool("create_course", ["course_code", "title", "description", "credits", "department", "instructor_id", "schedule"], [], true, (env, a) => {
    const id = newId("C-");
    setDefault(env, "courses", {})[id] = {
      course_id: id, course_code: a.course_code, title: a.title, description: a.description, credits: a.credits,
      department: a.department, instructor_id: a.instructor_id, schedule: a.schedule,
    };
    return `Course '${s(a.title)}' (${s(a.course_code)}) created with ID ${id}.`;
  }),
  tool("get_financial_aid", ["student_id"], [], false, (env, a) => values(got(env, "financial_aid", {})).filter((x) => x?.student_id === a.student_id)),
  tool("adjust_financial_aid", ["aid_id"], ["amount", "status", "reviewer_notes"], true, (env, a) => {
    const aid = got(env, "financial_aid", {});
    if (!has(aid, a.aid_id)) return { error: `Financial aid record ${s(a.aid_id)} not found.` };
    const r = aid[a.aid_id];
    for (const k of ["amount", "status", "reviewer_notes"]) if (a[k] !== undefined) r[k] = a[k];
    return r;
  }),
  tool("get_grades_for_student", ["student_id"], [], false, (env, a) => values(got(env, "grades", {})).filter((g) => g?.student_id === a.student_id)),
  tool("submit_grade", ["student_id", "course_id", "assignment_name", "score", "max_score"], ["grader_comments"], true, (env, a) => {
    const id = newId("G-");
    setDefault(env, "grades", {})[id] = {
      grade_id: id, student_id: a.student_id, course_id: a.course_id, assignment_name: a.assignment_name,
      score: a.score, max_score: a.max_score, grader_comments: a.grader_comments ?? "",
    };
    return `Grade submitted for student ${s(a.student_id)} in course ${s(a.course_id)}.`;
  }),
  tool("search_students", [], ["name", "major", "email"], true, (env, a) =>
    values(got(env, "students", {})).filter((st) => {
      if (truthy(a.name) && !`${s(got(st, "first_name", ""))} ${s(got(st, "last_name", ""))}`.toLowerCase().includes(lower(a.name))) return false;
      if (truthy(a.major) && !lower(field(st, "major")).includes(lower(a.major))) return false;
      if (truthy(a.email) && lower(a.email) !== lower(field(st, "email"))) return false;
      return true;
    }),
  ),
  tool("get_student_record", ["student_id"], [], false, (env, a) => {
    const st = got(env, "students", {});
    return has(st, a.student_id) ? st[a.student_id] : { error: `Student ${s(a.student_id)} not found.` };
  }),
  tool("update_student_advisor_notes", ["student_id", "notes"], [], false, (env, a) => {
    const st = got(env, "students", {});
    if (!has(st, a.student_id)) return `Error: Student ${s(a.student_id)} not found.`;
    st[a.student_id].advisor_notes = appendNote(got(st[a.student_id], "advisor_notes", ""), a.notes);
    return `Advisor notes updated for student ${s(a.student_id)}.`;
  }),
];
