/**
 * WorkBench's project management tools (ProjectManagementTool). Searches AND their filters (regex
 * `str.contains` for name, list, due date and board; exact case-insensitive assignee); create and
 * update check the assignee against the team (the table's own assignees) and the fixed list and board
 * names (case-sensitive); a new task is appended with `ignore_index=True`, renumbering the index.
 */
import { pyRegex } from "../../../util/py-regex.ts";
import { containsMask } from "./pandas-str.ts";
import { hashable, lower, PyError, truthy } from "./py-ops.ts";
import { appendRow, columnHas, filterRows, intOfMax, records, setWhere, zfill8 } from "./table.ts";
import type { ToolDef, WorkplaceState } from "./tool-def.ts";

const OWNER = "ProjectManagementTool";
const LISTS = ["Backlog", "In Progress", "In Review", "Completed"];
const BOARDS = ["Back end", "Front end", "Design"];
const BAD_LIST = "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'.";
const BAD_BOARD = "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'.";
const BAD_ASSIGNEE = "Assignee email not valid. Please choose from the list of team members.";
const EMAIL = pyRegex("^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$");

/** `x in df["assigned_to_email"].str.lower().values`. */
function isTeamMember(state: WorkplaceState, email: string): boolean {
  return state.tasks.rows.some((r) => typeof r.assigned_to_email === "string" && r.assigned_to_email.toLowerCase() === email);
}

/** The project management tools by their public name. */
export const PROJECT_TOOLS: Record<string, ToolDef> = {
  project_management_get_task_information_by_id: {
    owner: OWNER,
    method: "get_task_information_by_id",
    params: { task_id: undefined, field: undefined },
    run(state, { task_id, field }) {
      if (!truthy(task_id)) return "Task ID not provided.";
      if (!truthy(field)) return "Field not provided.";
      const task = records(filterRows(state.tasks, (r) => r.task_id === task_id))[0];
      if (!task) return "Task not found.";
      return typeof hashable(field) === "string" && Object.hasOwn(task, field as string) ? { [field as string]: task[field as string] } : "Field not found.";
    },
  },
  project_management_search_tasks: {
    owner: OWNER,
    method: "search_tasks",
    params: { task_name: undefined, assigned_to_email: undefined, list_name: undefined, due_date: undefined, board: undefined },
    run(state, { task_name, assigned_to_email, list_name, due_date, board }) {
      if (![task_name, assigned_to_email, list_name, due_date, board].some(truthy)) return "No search parameters provided.";
      if (truthy(assigned_to_email)) {
        if (typeof assigned_to_email !== "string") throw new PyError("TypeError", "expected string or bytes-like object");
        if (!EMAIL.match(assigned_to_email)) return "Invalid email format for assigned_to_email.";
      }
      let tasks = state.tasks;
      if (truthy(task_name)) tasks = filterRows(tasks, containsMask(tasks, "task_name", task_name, false));
      if (truthy(assigned_to_email)) {
        const want = lower(assigned_to_email);
        tasks = filterRows(tasks, (r) => typeof r.assigned_to_email === "string" && r.assigned_to_email.toLowerCase() === want);
      }
      if (truthy(list_name)) tasks = filterRows(tasks, containsMask(tasks, "list_name", list_name, false));
      if (truthy(due_date)) tasks = filterRows(tasks, containsMask(tasks, "due_date", due_date, false));
      if (truthy(board)) tasks = filterRows(tasks, containsMask(tasks, "board", board, false));
      return records(tasks);
    },
  },
  project_management_create_task: {
    owner: OWNER,
    method: "create_task",
    params: { task_name: undefined, assigned_to_email: undefined, list_name: undefined, due_date: undefined, board: undefined },
    run(state, { task_name, assigned_to_email, list_name, due_date, board }) {
      if (![task_name, assigned_to_email, list_name, due_date, board].every(truthy)) return "Missing task details.";
      const who = lower(assigned_to_email);
      if (!isTeamMember(state, who)) return BAD_ASSIGNEE;
      if (!LISTS.includes(list_name as string)) return BAD_LIST;
      if (!BOARDS.includes(board as string)) return BAD_BOARD;
      const task_id = zfill8(intOfMax(state.tasks, "task_id") + 1);
      state.tasks = appendRow(state.tasks, { task_id, task_name, assigned_to_email: who, list_name, due_date, board }, true);
      return task_id;
    },
  },
  project_management_delete_task: {
    owner: OWNER,
    method: "delete_task",
    params: { task_id: undefined },
    run(state, { task_id }) {
      if (!truthy(task_id)) return "Task ID not provided.";
      if (!columnHas(state.tasks, "task_id", task_id)) return "Task not found.";
      state.tasks = filterRows(state.tasks, (r) => r.task_id !== task_id);
      return "Task deleted successfully.";
    },
  },
  project_management_update_task: {
    owner: OWNER,
    method: "update_task",
    params: { task_id: undefined, field: undefined, new_value: undefined },
    run(state, { task_id, field, new_value }) {
      if (!truthy(task_id) || !truthy(field) || !truthy(new_value)) return "Task ID, field, or new value not provided.";
      const value = field === "assigned_to_email" ? lower(new_value) : new_value;
      if (field === "board" && !BOARDS.includes(value as string)) return BAD_BOARD;
      if (field === "list_name" && !LISTS.includes(value as string)) return BAD_LIST;
      if (field === "assigned_to_email" && !isTeamMember(state, value as string)) return BAD_ASSIGNEE;
      if (!columnHas(state.tasks, "task_id", task_id)) return "Task not found.";
      if (!state.tasks.columns.includes(hashable(field) as string)) return "Field not valid.";
      state.tasks = setWhere(state.tasks, (r) => r.task_id === task_id, field as string, value);
      return "Task updated successfully.";
    },
  },
};
