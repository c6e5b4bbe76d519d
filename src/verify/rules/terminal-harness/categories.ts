/** terminal_multi_harness's step reward categories (upstream StepRewardCategory: the wire strings). */
export const STEP = {
  NO_ACTION_FOUND: "No tool call or chat message was found in the response",
  ACTION_TYPE_MISMATCH: "The actual action type does not match the expected action type",
  EMPTY_MESSAGE: "The assistant message is empty after trimming whitespace",
  EXPECTED_CHAT_MESSAGE_FOUND: "A chat message that matches the expected message was found",
  UNEXPECTED_TOOL: "The tool in a tool call is not the expected tool",
  ARGUMENTS_DECODE_ERROR: "An error occurred when decoding the arguments string in a tool call as JSON",
  ARGUMENTS_NOT_OBJECT: "The decoded tool-call arguments are not a JSON object",
  TOOL_SCHEMA_NOT_FOUND: "The declared tool schema for the tool call could not be found",
  TOOL_SCHEMA_VALIDATION_FAILED: "The actual tool-call arguments are not valid under the declared tool schema",
  UNEXPECTED_ARGUMENT_KEYS: "The actual tool-call arguments contain parameter keys absent from the expected answer",
  ARGUMENT_VALUE_MISMATCH: "The actual tool-call argument values do not match the expected answer",
  FUNCTION_CALL_BATCH_LENGTH_DIFFERENT: "The number of tool calls in a batch is different than expected",
  EXEC_COMMAND_MISSING_CMD: "The exec_command tool call does not contain a cmd argument",
  EXEC_COMMAND_CMD_SIMILARITY_BELOW_THRESHOLD: "The exec_command cmd similarity is below threshold",
  BASH_MISSING_COMMAND: "The bash tool call does not contain a command argument",
  BASH_COMMAND_SIMILARITY_BELOW_THRESHOLD: "The bash command similarity is below threshold",
  UPDATE_PLAN_EMPTY_PLAN: "The update_plan tool call does not contain a non-empty plan argument",
  EXECUTE_PYTHON_CODE_SIMILARITY_BELOW_THRESHOLD: "The execute_python code similarity is below threshold",
  RETURN_RESULT_SIMILARITY_BELOW_THRESHOLD: "The return_result result similarity is below threshold",
  TODOWRITE_EMPTY_TODOS: "The todowrite tool call does not contain a non-empty todos list",
  EXPECTED_TOOL_CALL: "A tool call that matches the expected tool call was found",
  EXPECTED_TOOL_CALL_BATCH: "A tool-call batch that matches the expected batch was found",
  WEB_SEARCH_QUERY_SIMILARITY_BELOW_THRESHOLD: "The web_search query similarity is below threshold",
  WEB_SEARCH_MISSING_QUERY: "The web_search tool call does not contain a query argument",
  FETCH_WEB_PAGE_MISSING_URL: "The fetch_web_page tool call does not contain a url argument",
  FETCH_WEB_PAGE_URLS_DO_NOT_MATCH: "The fetch_web_page urls do not match the expected urls",
  FINISH_MISSING_REASON: "The finish tool call does not contain a reason argument",
  FINISH_MISSING_PATHS: "The finish tool call does not contain a paths argument",
  FINISH_REASON_SIMILARITY_BELOW_THRESHOLD: "The finish reason similarity is below threshold",
  FINISH_PATHS_DO_NOT_MATCH: "The finish paths do not match the expected paths",
} as const;
/** One category string. */
export type StepCategory = (typeof STEP)[keyof typeof STEP];

/** The outcome of one comparison. */
export interface StepResult {
  matches: boolean;
  category: StepCategory;
  similarity_score: number | null;
}

/** A result without a similarity score. */
export const result = (matches: boolean, category: StepCategory, similarity_score: number | null = null): StepResult => ({ matches, category, similarity_score });
